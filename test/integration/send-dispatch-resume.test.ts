// A dispatcher that must stop before its Lambda's time limit: it fans out a page, records its cursor,
// schedules its own resumption and returns; each run continues where the last recorded page ended.
import type { SQSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import * as progress from '../../shared/single-sends/progress';
import { getSingleSend, singleSendJobName } from '../../shared/single-sends/repository';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { claimLocalJob, completeLocalJob, dueLocalJobs } from '../../shared/scheduling/local-scheduler';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

// The real progress module, with its page write observable so a test can make one fail (a crash).
jest.mock('../../shared/single-sends/progress', () => {
  const actual = jest.requireActual<typeof progress>('../../shared/single-sends/progress');
  return { ...actual, saveDispatchPage: jest.fn(actual.saveDispatchPage) };
});

let env: SendingEnvironment;
/**
 * The batch id of every message the dispatcher fanned out that reached the deliverer. A batch whose
 * 2-second turn ends before its last recipient continues in a fresh message of the same batch (it
 * carries `settledBefore`): that is the deliverer's doing, not a second fan-out, so it is not counted
 * here (on a busy machine a batch of 20 can take longer than a turn).
 */
const deliveredBatches: string[] = [];

beforeAll(async () => {
  env = await startSendingEnvironment();
  process.env.DISPATCH_PAGE_SIZE = '20';
  resetSendingSettings();
  registerLocalConsumer('deliveries', async (event: SQSEvent) => {
    const messages = event.Records.map((record) => JSON.parse(record.body) as { batchId: string; settledBefore?: unknown });
    deliveredBatches.push(...messages.filter((message) => message.settledBefore === undefined).map((message) => message.batchId));
    return deliverHandler(event);
  });
}, 60_000);

afterAll(async () => {
  delete process.env.DISPATCH_PAGE_SIZE;
  resetSendingSettings();
  await env.stop();
});

beforeEach(() => {
  deliveredBatches.length = 0;
});

/** A Lambda context with no time left: the dispatcher yields after every page. */
const outOfTime = { getRemainingTimeInMillis: () => 1_000 };

/** Fire the send's pending scheduler job, as the poller would; false when there is none. */
async function fireResumeJob(accountId: number, utr: string): Promise<boolean> {
  const name = singleSendJobName(accountId, utr);
  const due = (await dueLocalJobs(new Date(Date.now() + 60_000))).find((job) => job.name === name);
  if (!due) return false;
  const job = await claimLocalJob(due);
  if (!job) return false;
  const payload = JSON.parse(job.input) as { accountId: number; utr: string; resume?: boolean };
  expect(payload).toEqual({ accountId, utr, resume: true });
  await dispatchHandler(payload, outOfTime);
  // As the poller does once the run returns (a resume the run booked under the same name stays).
  await completeLocalJob(job);
  return true;
}

async function mailCounts(sink: SendingEnvironment['sink'], emails: string[]): Promise<number[]> {
  const mails = await mailsTo(sink, emails);
  const counts = new Map<string, number>();
  for (const mail of mails) counts.set(mail.destination.to[0] as string, (counts.get(mail.destination.to[0] as string) ?? 0) + 1);
  return emails.map((email) => counts.get(email) ?? 0);
}

describe('a dispatcher out of time', () => {
  test('100 recipients: stops after each page of 20, resumes from its cursor, fans out each page once', async () => {
    // Prepare
    const audience = await accountWithContacts(100);
    const send = await readySend(audience.accountId, { recipient_id: [{ id: String(audience.typeId), table: 'contacts_' }] });

    // Act: the first run, then every resume job it leaves, until none is left.
    await dispatchHandler({ accountId: audience.accountId, utr: send.utr }, outOfTime);
    let runs = 1;
    const cursors: (number | string | null)[] = [];
    for (;;) {
      cursors.push((await progress.getDispatchState(audience.accountId, send.utr))?.cursor.after ?? null);
      if (!(await fireResumeJob(audience.accountId, send.utr))) break;
      runs++;
    }
    await localQueueIdle();

    // Assess: one run per page of 20, and one more that finds the audience exhausted.
    expect(runs).toBe(6);
    // The cursor advanced 20 contacts per run (ids are 1..100 in this new account).
    expect(cursors).toEqual([20, 40, 60, 80, 100, null]);
    expect([...deliveredBatches].sort()).toEqual(['0.0', '1.0', '2.0', '3.0', '4.0']);
    expect(await mailCounts(env.sink, audience.emails)).toEqual(audience.emails.map(() => 1));
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ status: 3, triggered: 100 });
    expect(await progress.getDispatchState(audience.accountId, send.utr)).toMatchObject({ done: true, fannedBatches: 5, settledBatches: 5, fannedRecipients: 100 });
  }, 60_000);

  test('a run that dies after fanning out a page but before recording it: the re-run sends that page again under the same batch ids, nobody is mailed twice', async () => {
    // Prepare: the second page's cursor write fails, as if the Lambda died right after the fan-out.
    const audience = await accountWithContacts(60);
    const send = await readySend(audience.accountId, { recipient_id: [{ id: String(audience.typeId), table: 'contacts_' }] });
    const save = jest.mocked(progress.saveDispatchPage);
    const real = jest.requireActual<typeof progress>('../../shared/single-sends/progress').saveDispatchPage;
    save.mockImplementationOnce(real).mockRejectedValueOnce(new Error('the Lambda died here'));

    // Act
    await expect(dispatchHandler({ accountId: audience.accountId, utr: send.utr })).rejects.toThrow('the Lambda died here');
    await dispatchHandler({ accountId: audience.accountId, utr: send.utr, resume: true });
    await localQueueIdle();

    // Assess: page 1's batch reached the deliverer twice, was settled once; everyone mailed once.
    expect(deliveredBatches.filter((id) => id === '1.0')).toHaveLength(2);
    expect(await mailCounts(env.sink, audience.emails)).toEqual(audience.emails.map(() => 1));
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ status: 3, triggered: 60 });
    const state = await progress.getDispatchState(audience.accountId, send.utr);
    expect(state).toMatchObject({ fannedBatches: 3, settledBatches: 3, failed: 0 });
    // Whichever copy of the replayed batch settled first decides its sent/skipped split; triggered is exact.
    expect((state?.sent ?? 0) + (state?.skipped ?? 0)).toBe(60);
  }, 60_000);
});
