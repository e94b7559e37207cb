// A send whose dispatch fails or whose dispatch job is lost: the watchdog finds it on the stall watch
// (a sparse index, no Scan), resumes it from its stored cursor and says so in its details, and ends it
// at status 4 with the reason when it cannot be resumed: a send never sits silently at status 2.
import type { SQSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { startSchedulerPoller } from '../../infra/local/scheduler-poller';
import { resetConfig } from '../../shared/config';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { claimLocalJob, completeLocalJob, dueLocalJobs } from '../../shared/scheduling/local-scheduler';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { watchStalledSends, unconfirmedDeliveryLimitMs } from '../../shared/single-send-runs/stall-watchdog';
import * as progress from '../../shared/single-sends/progress';
import { completeIfSettled, settleDeliveryBatch } from '../../shared/single-sends/settling';
import type { DispatchState } from '../../shared/single-sends/dispatch-state';
import { singleSendJobName, type SingleSend } from '../../shared/single-sends/repository';
import { silentSends } from '../../shared/single-sends/stall-watch';
import { singleSendDispatchKey, singleSendWatchKey, stallWatchPartition, stallWatchShard, stallWatchSortKey } from '../../shared/single-sends/keys';
import { deleteItem, getItem, updateItem } from '../../shared/table/records';
import { resetClock, setClock } from '../../shared/time';
import { setLocalTenantStatus } from '../../shared/tenants/local-tenants';
import { ensureAccountTenant } from '../../shared/tenancy/tenant-service';
import { tenantRecheckMs } from '../../shared/send-gates/tenant-gate-service';
import { newAccount } from '../support/accounts';
import type { Keys } from '../support/events';
import { callSingleSends } from '../support/single-sends';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

// The real progress module, with its page write observable so a test can make one fail (a dispatcher
// that throws on a page, every retry of it included).
jest.mock('../../shared/single-sends/progress', () => {
  const actual = jest.requireActual<typeof progress>('../../shared/single-sends/progress');
  return { ...actual, saveDispatchPage: jest.fn(actual.saveDispatchPage) };
});

let env: SendingEnvironment;
/** Sends whose delivery messages are lost (taken off the queue and never delivered). */
const losingDeliveriesOf = new Set<string>();

/** The watchdog's clock runs ahead of the wall clock by this much (a stall takes 15 minutes to show). */
let clockAheadMs = 0;
const stallMs = 15 * 60_000;

beforeAll(async () => {
  env = await startSendingEnvironment();
  process.env.DISPATCH_PAGE_SIZE = '20';
  resetSendingSettings();
  registerLocalConsumer('deliveries', async (event: SQSEvent) => {
    const kept = event.Records.filter((record) => !losingDeliveriesOf.has((JSON.parse(record.body) as { ref: { utr: string } }).ref.utr));
    return deliverHandler({ Records: kept });
  });
  setClock(() => new Date(Date.now() + clockAheadMs));
}, 60_000);

afterAll(async () => {
  resetClock();
  delete process.env.DISPATCH_PAGE_SIZE;
  resetSendingSettings();
  await env.stop();
});

/** Let `ms` pass on the watchdog's clock. */
function passTime(ms: number): void {
  clockAheadMs += ms;
}

interface Audience {
  keys: Keys & { account_id: number };
  accountId: number;
  emails: string[];
  send: SingleSend;
}

/** A fresh account, `count` contacts of one type, and a ready send to them. */
async function audienceAndSend(count: number): Promise<Audience> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Newsletter');
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `stall-${tag}-${String(i).padStart(4, '0')}@example.com`);
  for (const email of emails) await addContact(keys.account_id, contactFields(type.id, email), {});
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }] });
  return { keys, accountId: keys.account_id, emails, send };
}

/** A Lambda context with no time left: the dispatcher yields after every page. */
const outOfTime = { getRemainingTimeInMillis: () => 1_000 };

/** Take the send's pending job off the scheduler: fired (as the poller does) or dropped (an invocation lost). */
async function takeSendJob(audience: Audience): Promise<{ accountId: number; utr: string; resume?: boolean } | undefined> {
  const name = singleSendJobName(audience.accountId, audience.send.utr);
  const due = (await dueLocalJobs(new Date(Date.now() + clockAheadMs + 60_000), 1_000)).find((job) => job.name === name);
  const job = due ? await claimLocalJob(due) : undefined;
  // Off the scheduler for good, as the poller deletes it once the run returns.
  if (job) await completeLocalJob(job);
  return job ? (JSON.parse(job.input) as { accountId: number; utr: string; resume?: boolean }) : undefined;
}

/** Fire the send's jobs one after another, as the scheduler would, until none is left; the runs made. */
async function fireSendJobs(audience: Audience): Promise<number> {
  let runs = 0;
  for (let payload = await takeSendJob(audience); payload; payload = await takeSendJob(audience)) {
    await dispatchHandler(payload, outOfTime);
    runs++;
  }
  await localQueueIdle();
  return runs;
}

async function details(audience: Audience): Promise<Record<string, unknown>> {
  const { status, body } = await callSingleSends(audience.keys, 'GET', 'single-send/details', { query: { utr: audience.send.utr } });
  expect(status).toBe(200);
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

async function mailCounts(emails: string[]): Promise<number[]> {
  const counts = new Map<string, number>();
  for (const mail of await mailsTo(env.sink, emails)) counts.set(mail.destination.to[0] as string, (counts.get(mail.destination.to[0] as string) ?? 0) + 1);
  return emails.map((email) => counts.get(email) ?? 0);
}

/** The send's entries on the watch, however recently heard of. */
const entriesOf = async (audience: Audience) => (await silentSends(new Date(Date.now() + clockAheadMs + 365 * 24 * 3600_000))).filter((entry) => entry.utr === audience.send.utr);

const isWatched = async (audience: Audience) => (await entriesOf(audience)).length > 0;

describe('a send whose dispatch stops', () => {
  test('the dispatcher throws on a page (and on its retries): the watchdog resumes it from its cursor to status 3, everyone mailed once', async () => {
    // Prepare: the second page's write fails; Lambda's retries would fail the same way, and give up.
    const audience = await audienceAndSend(60);
    const real = jest.requireActual<typeof progress>('../../shared/single-sends/progress').saveDispatchPage;
    jest.mocked(progress.saveDispatchPage).mockImplementationOnce(real).mockRejectedValueOnce(new Error('DynamoDB is unreachable'));
    await expect(dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr })).rejects.toThrow('DynamoDB is unreachable');
    await localQueueIdle();
    const stopped = await progress.getDispatchState(audience.accountId, audience.send.utr);
    expect(stopped).toMatchObject({ page: 1, cursor: { source: 0, after: 20 }, done: false });

    // Act: before the threshold nothing happens; after it the watchdog resumes the send.
    passTime(stallMs - 60_000);
    await watchStalledSends();
    expect(await takeSendJob(audience)).toBeUndefined();
    passTime(2 * 60_000);
    const run = await watchStalledSends();

    // Assess: resumed, and its details say so while it waits for the run.
    expect(run.outcomes.resumed).toBeGreaterThanOrEqual(1);
    expect(await details(audience)).toMatchObject({
      status: 2,
      waiting: {
        reason: 'resuming',
        message: `No progress since ${stopped?.progressAt}; resuming from where it stopped (attempt 1 of 3).`,
        since: stopped?.progressAt,
        retry_at: expect.any(String),
      },
    });
    expect(await fireSendJobs(audience)).toBeGreaterThanOrEqual(3);
    const shown = await details(audience);
    expect(shown).toMatchObject({ status: 3, triggered: 60 });
    expect(shown).not.toHaveProperty('waiting');
    expect(shown).not.toHaveProperty('failure');
    expect(await mailCounts(audience.emails)).toEqual(audience.emails.map(() => 1));
    expect(await progress.getDispatchState(audience.accountId, audience.send.utr)).toMatchObject({ done: true, fannedRecipients: 60, stallResumes: 0 });
    expect(await isWatched(audience)).toBe(false);
  }, 60_000);

  test('its resume job is dropped: the watchdog books a new one and the send continues from its cursor', async () => {
    // Prepare: the first run yields after a page; the job it booked to continue never fires.
    const audience = await audienceAndSend(40);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr }, outOfTime);
    expect(await takeSendJob(audience)).toEqual({ accountId: audience.accountId, utr: audience.send.utr, resume: true });
    await localQueueIdle();
    expect(await details(audience)).toMatchObject({ status: 2, triggered: 20 });

    // Act
    passTime(stallMs + 60_000);
    await watchStalledSends();
    await fireSendJobs(audience);

    // Assess: the first page is not sent again; the rest is.
    expect(await details(audience)).toMatchObject({ status: 3, triggered: 40 });
    expect(await mailCounts(audience.emails)).toEqual(audience.emails.map(() => 1));
  }, 60_000);

  test('a deliverer that settled the last batch and died before completing the send: the watchdog has it completed', async () => {
    // Prepare: the one batch is lost on the queue, then counted as settled, as the dying deliverer did.
    const audience = await audienceAndSend(5);
    losingDeliveriesOf.add(audience.send.utr);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr });
    await localQueueIdle();
    const ref = encodeSendRef({ kind: 'single-send', accountId: audience.accountId, utr: audience.send.utr });
    expect(await settleDeliveryBatch(audience.accountId, audience.send.utr, ref, '0.0', { sent: 5, skipped: 0, failed: 0 })).toBe(true);
    expect(await details(audience)).toMatchObject({ status: 2 });

    // Act
    passTime(stallMs + 60_000);
    await watchStalledSends();
    await fireSendJobs(audience);

    // Assess
    expect(await details(audience)).toMatchObject({ status: 3, sent_at: expect.any(String) });
    expect(await isWatched(audience)).toBe(false);
  }, 60_000);
});

describe('a send that cannot be resumed ends visibly', () => {
  test('every resume job is lost: after 3 resumes the send ends at status 4, its details say why, and it is off the watch', async () => {
    // Prepare
    const audience = await audienceAndSend(40);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr }, outOfTime);
    await takeSendJob(audience);
    await localQueueIdle();
    const { progressAt } = (await progress.getDispatchState(audience.accountId, audience.send.utr)) as DispatchState;

    // Act: each watchdog run books a resume, and each one is dropped.
    const attempts: unknown[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      passTime(stallMs + 60_000);
      await watchStalledSends();
      attempts.push((await details(audience)).waiting);
      expect(await takeSendJob(audience)).toEqual({ accountId: audience.accountId, utr: audience.send.utr, resume: true });
    }
    passTime(stallMs + 60_000);
    const last = await watchStalledSends();

    // Assess
    expect(attempts).toEqual([1, 2, 3].map((attempt) => expect.objectContaining({ reason: 'resuming', message: expect.stringContaining(`(attempt ${attempt} of 3)`) })));
    expect(last.outcomes.failed).toBe(1);
    const shown = await details(audience);
    expect(shown).toMatchObject({
      status: 4,
      triggered: 20,
      failure: {
        reason: 'dispatch-failed',
        message: `Sending stopped at ${progressAt} and did not move after 3 resumes; 20 recipients were queued, the rest were not reached.`,
        at: expect.any(String),
      },
    });
    expect(shown).not.toHaveProperty('waiting');
    expect(await isWatched(audience)).toBe(false);
    // Nothing revives it: a late run of its dispatcher leaves it as it is.
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr, resume: true });
    expect(await details(audience)).toMatchObject({ status: 4, triggered: 20 });
    expect(await mailCounts(audience.emails)).toEqual(audience.emails.map((_, i) => (i < 20 ? 1 : 0)));
  }, 60_000);

  test('every recipient queued but a batch never confirmed: it waits, saying so, then ends at status 4 once the batch must be lost', async () => {
    // Prepare
    const audience = await audienceAndSend(5);
    losingDeliveriesOf.add(audience.send.utr);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr });
    await localQueueIdle();

    // Act and assess: past the threshold it waits for its deliveries (nothing to resume).
    passTime(stallMs + 60_000);
    expect((await watchStalledSends()).outcomes.waiting).toBe(1);
    expect(await details(audience)).toMatchObject({
      status: 2,
      waiting: { reason: 'delivering', message: 'Every recipient is queued; 1 of 1 batches have not been confirmed delivered for 16 minutes.', retry_at: null },
    });
    expect(await takeSendJob(audience)).toBeUndefined();
    passTime(unconfirmedDeliveryLimitMs);
    expect((await watchStalledSends()).outcomes.failed).toBe(1);
    expect(await details(audience)).toMatchObject({
      status: 4,
      failure: { reason: 'deliveries-unconfirmed', message: expect.stringMatching(/^1 of 1 batches of recipients were never confirmed delivered/) },
    });
  }, 60_000);
});

describe('a send that progresses', () => {
  test('is no stall: its entry, which pages and settled batches do not move, comes up a threshold after it was put on and moves on to its last progress', async () => {
    // Prepare: every recipient queued in 3 batches, none settled yet.
    const audience = await audienceAndSend(60);
    losingDeliveriesOf.add(audience.send.utr);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr });
    await localQueueIdle();
    const [entry] = await entriesOf(audience);
    expect(entry?.item).toEqual(singleSendWatchKey(audience.accountId, audience.send.utr));

    // Act: past the threshold, a batch settles (a deliverer's progress), then the watchdog runs.
    passTime(stallMs + 60_000);
    const ref = encodeSendRef({ kind: 'single-send', accountId: audience.accountId, utr: audience.send.utr });
    expect(await settleDeliveryBatch(audience.accountId, audience.send.utr, ref, '0.0', { sent: 20, skipped: 0, failed: 0 })).toBe(true);
    const { progressAt } = (await progress.getDispatchState(audience.accountId, audience.send.utr)) as DispatchState;
    expect(await entriesOf(audience)).toEqual([entry]);
    const run = await watchStalledSends();

    // Assess: nothing held or resumed; the entry sits at the batch's settle.
    expect(run.outcomes.progressed).toBe(1);
    expect(await details(audience)).not.toHaveProperty('waiting');
    expect((await entriesOf(audience)).map((moved) => moved.heardAt)).toEqual([progressAt]);

    // Act: a threshold after that settle, with nothing settled since.
    passTime(stallMs + 60_000);
    await watchStalledSends();

    // Assess: silent now, it waits for its deliveries as any send would.
    expect(await details(audience)).toMatchObject({
      status: 2,
      waiting: { reason: 'delivering', message: 'Every recipient is queued; 2 of 3 batches have not been confirmed delivered for 16 minutes.', since: progressAt, retry_at: null },
    });

    // Act: the other two batches settle, the last one completes the send.
    for (const batchId of ['0.1', '0.2']) expect(await settleDeliveryBatch(audience.accountId, audience.send.utr, ref, batchId, { sent: 20, skipped: 0, failed: 0 })).toBe(true);
    expect(await completeIfSettled(audience.accountId, audience.send.utr)).toMatchObject({ settledBatches: 3, sent: 60 });

    // Assess: off the watch, its entry's item gone.
    expect(await isWatched(audience)).toBe(false);
    expect(await getItem(singleSendWatchKey(audience.accountId, audience.send.utr))).toBeUndefined();
  }, 60_000);

  test('with its entry on its dispatch item, as sends started before kept it: found, resumed when stalled, and off the watch once completed', async () => {
    // Prepare: stopped after its first page (its resume job lost), its entry where the code before kept it.
    const audience = await audienceAndSend(40);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr }, outOfTime);
    await takeSendJob(audience);
    await localQueueIdle();
    const { progressAt } = (await progress.getDispatchState(audience.accountId, audience.send.utr)) as DispatchState;
    const dispatchKey = singleSendDispatchKey(audience.accountId, audience.send.utr);
    await deleteItem({ Key: singleSendWatchKey(audience.accountId, audience.send.utr) });
    await updateItem({
      Key: dispatchKey,
      UpdateExpression: 'SET gsi1pk = :partition, gsi1sk = :heard',
      ExpressionAttributeValues: { ':partition': stallWatchPartition(stallWatchShard(audience.send.utr)), ':heard': stallWatchSortKey(new Date(progressAt), audience.accountId, audience.send.utr) },
    });
    expect((await entriesOf(audience)).map((entry) => entry.item)).toEqual([dispatchKey]);

    // Act
    passTime(stallMs + 60_000);
    const run = await watchStalledSends();
    await fireSendJobs(audience);

    // Assess
    expect(run.outcomes.resumed).toBe(1);
    expect(await details(audience)).toMatchObject({ status: 3, triggered: 40 });
    expect(await mailCounts(audience.emails)).toEqual(audience.emails.map(() => 1));
    expect(await isWatched(audience)).toBe(false);
    expect(await getItem(dispatchKey)).not.toHaveProperty('gsi1pk');
  }, 60_000);
});

describe('a send held by its account\'s paused SES tenant', () => {
  test('is not a stall: the watchdog reads the pause from SES, says why it waits and never ends it; once enabled, silence counts again from the last pause seen', async () => {
    // Prepare: every recipient queued, the batch never confirmed (its deliveries wait), and the tenant paused by SES.
    const audience = await audienceAndSend(5);
    losingDeliveriesOf.add(audience.send.utr);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr });
    await localQueueIdle();
    // As SES does: the tenant's own status, not yet the account's record of it.
    const tenant = await ensureAccountTenant(audience.accountId);
    await setLocalTenantStatus(tenant?.name ?? '', 'paused');

    // Act: far past both the stall threshold and the limit for unconfirmed batches.
    passTime(stallMs + 60_000);
    const first = await watchStalledSends();
    passTime(unconfirmedDeliveryLimitMs + stallMs);
    const second = await watchStalledSends();

    // Assess: it waits, saying why, at status 2.
    expect(first.outcomes.waiting).toBe(1);
    expect(second.outcomes.waiting).toBe(1);
    expect(await details(audience)).toMatchObject({ status: 2, waiting: { reason: 'tenant-paused', message: expect.stringMatching(/^The account's SES tenant .+ is paused by SES/) } });

    // Act: SES enables the tenant; the lost batch is still never confirmed.
    await setLocalTenantStatus(tenant?.name ?? '', 'enabled');
    passTime(tenantRecheckMs + stallMs + 60_000);
    const after = await watchStalledSends();

    // Assess: silence restarted at the last pause seen, so it waits for its deliveries instead of ending at once.
    expect(after.outcomes).toEqual({ waiting: 1 });
    expect(await details(audience)).toMatchObject({ status: 2, waiting: { reason: 'delivering' } });
  }, 60_000);
});

describe('the local scheduler', () => {
  test('runs the watchdog on its own, and fires the resume it books', async () => {
    // Prepare: the wall clock again (the poller's), a stalled send (its resume job dropped), and a one-second threshold.
    clockAheadMs = 0;
    const audience = await audienceAndSend(40);
    await dispatchHandler({ accountId: audience.accountId, utr: audience.send.utr }, outOfTime);
    await takeSendJob(audience);
    await localQueueIdle();
    process.env.SEND_STALL_MINUTES = String(1 / 60);
    resetConfig();
    const lines: string[] = [];
    // The watchdog's handler as `npm start` loads it: functions/send-watchdog/handler.ts.
    const poller = startSchedulerPoller({ intervalMs: 50, recurring: { 'send-watchdog': 200 }, log: (line) => lines.push(line) });
    try {
      // Act: wait for the send to finish, on the poller alone.
      const deadline = Date.now() + 20_000;
      let shown = await details(audience);
      while (shown.status !== 3 && Date.now() < deadline) {
        await new Promise((resume) => setTimeout(resume, 100));
        shown = await details(audience);
      }
      await localQueueIdle();

      // Assess
      expect(lines).toEqual([]);
      expect(shown).toMatchObject({ status: 3, triggered: 40 });
      expect(await mailCounts(audience.emails)).toEqual(audience.emails.map(() => 1));
    } finally {
      await poller.stop();
      delete process.env.SEND_STALL_MINUTES;
      resetConfig();
    }
  }, 60_000);
});
