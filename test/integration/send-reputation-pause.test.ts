// Sends that protect the reputation: a single send whose hard bounces pass the limit (after the
// minimum number of mails) pauses itself with `paused_reason`, mails the notification recipients once,
// and mails nobody else until `single/send/resume`, which continues with exactly the recipients not
// yet mailed. Through the real pipeline: dispatcher, delivery queue, the sink playing SES's mailbox
// simulator, and the ses-events function counting and suppressing. Each delivery invocation waits for
// the SES events of its mail, as if SES answered before the next batch: the pause lands at a known batch.
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { resetConfig } from '../../shared/config';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { addNotificationRecipient } from '../../shared/notification-recipients/repository';
import { configureLocalQueue, localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { localQueueDefaults } from '../../shared/queue/local-queue-settings';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { singleSendStats } from '../../shared/statistics/report';
import { getSingleSend } from '../../shared/single-sends/repository';
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { newAccount } from '../support/accounts';
import { callSingleSends, jobName, pendingJobTimes } from '../support/single-sends';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;
let unregister: () => void;

// A bounce limit of 95% keeps the first pause at the 10th bounce whatever the dispatcher has queued
// by then (stopping before the minimum needs more than 95% of 10 bounces); stopping early has its own
// test below, on the default limits.
const settings = { PAUSE_MIN_DELIVERIES: '10', DISPATCH_PAGE_SIZE: '5', BOUNCE_PAUSE_RATE: '0.95' };

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
  Object.assign(process.env, settings);
  resetConfig();
  resetSendingSettings();
  // One batch at a time, each followed by the SES events its mail caused.
  configureLocalQueue({ concurrency: 1, batchSize: 1 });
  unregister = registerLocalConsumer('deliveries', async (event) => {
    const answer = await deliverHandler(event);
    await env.sink.eventsIdle();
    return answer;
  });
}, 120_000);

afterAll(async () => {
  unregister();
  configureLocalQueue({ concurrency: localQueueDefaults.concurrency, batchSize: localQueueDefaults.batchSize });
  for (const name of Object.keys(settings)) delete process.env[name];
  resetConfig();
  resetSendingSettings();
  await env.stop();
});

/** Dispatch, then let every queued batch and every SES event run out. */
async function runDispatch(accountId: number, utr: string, resume = false): Promise<void> {
  await dispatchHandler({ accountId, utr, ...(resume ? { resume } : {}) });
  await localQueueIdle();
  await env.sink.eventsIdle();
}

/** Resume the paused send, then let its parked batches, any dispatch left and their SES events run out. */
async function resumeToTheEnd(keys: Awaited<ReturnType<typeof newAccount>>, utr: string): Promise<void> {
  expect((await callSingleSends(keys, 'GET', 'single/send/resume', { query: { utr } })).status).toBe(200);
  await localQueueIdle();
  if ((await pendingJobTimes(jobName(keys.account_id, utr))).length > 0) await runDispatch(keys.account_id, utr, true);
  await env.sink.eventsIdle();
}

/** Each address got exactly one mail. */
async function expectMailedOnce(addresses: string[]): Promise<void> {
  expect((await mailsTo(env.sink, addresses)).map((mail) => mail.destination.to[0]).sort()).toEqual([...addresses].sort());
}

/** An account whose one contact type holds `bouncing` simulator bounces first (lower ids), then `readers`. */
async function bouncingAudience(bouncing: number, readers: number) {
  const tag = Math.random().toString(36).slice(2, 8);
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Mixed');
  const bounces = Array.from({ length: bouncing }, (_, i) => `bounce+${tag}-${i}@simulator.amazonses.com`);
  const others = Array.from({ length: readers }, (_, i) => `reader-${tag}-${i}@example.com`);
  for (const email of [...bounces, ...others]) await addContact(keys.account_id, contactFields(type.id, email), {});
  const owner = `owner-${tag}@example.com`;
  await addNotificationRecipient(keys.account_id, { email_address: owner, email_owner: 'Owner' });
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }] });
  return { keys, utr: send.utr, bounces, readers: others, owner };
}

// Judged on the mails SES reported on: paused at the 10th bounce, before any reader.
const pausedReason = 'Paused: 10 of 10 mails bounced (100%, over the 95% limit).';

describe('a single send over the bounce limit', () => {
  test('pauses itself, says why, notifies once, mails nobody else; resume mails exactly the rest once', async () => {
    // Prepare: 10 bounces then 10 readers, 5 a batch; the limit is judged once 10 mails went.
    const { keys, utr, bounces, readers, owner } = await bouncingAudience(10, 10);
    const accountId = keys.account_id;

    // Act: the send runs until it pauses.
    await runDispatch(accountId, utr);

    // Assess: paused after its second batch, saying why; the 10 bounces suppressed and counted; no reader mailed.
    const details = await callSingleSends(keys, 'GET', 'single-send/details', { query: { utr } });
    expect(details.status).toBe(200);
    const [shown] = (details.body.message as { singleSend: Record<string, unknown>[] }).singleSend;
    expect(shown).toMatchObject({ status: 2, triggered: 10, bounces: 10, paused_reason: pausedReason });
    expect(shown?.waiting).toEqual({ reason: 'reputation', message: shown?.paused_reason, since: expect.any(String), retry_at: null });
    expect((await listBouncedAddresses(accountId)).map((entry) => entry.email_address).sort()).toEqual([...bounces].sort());
    expect((await singleSendStats(accountId, utr)).stats).toMatchObject({ bounces: 10 });
    expect(await mailsTo(env.sink, readers)).toEqual([]);
    const notices = await mailsTo(env.sink, [owner]);
    expect(notices.map((mail) => mail.subject)).toEqual(['Single send paused: Spring news']);
    expect(notices[0]?.body.text).toContain(String(shown?.paused_reason));
    expect(notices[0]?.body.text).toContain(`GET single/send/resume?utr=${utr}`);

    // Act: more SES events for the paused send (a bounce reported again) and another dispatcher run change nothing.
    await runDispatch(accountId, utr, true);
    expect(await mailsTo(env.sink, readers)).toEqual([]);
    expect(await mailsTo(env.sink, [owner])).toHaveLength(1);

    // Act: the owner resumes it.
    const resumed = await callSingleSends(keys, 'GET', 'single/send/resume', { query: { utr } });
    expect(resumed).toEqual({ status: 200, body: { status: 'success', message: 'Single send resumed; it continues with the recipients not yet mailed.' } });
    expect((await getSingleSend(accountId, utr)).paused_reason).toBeUndefined();
    // Its parked batches went back to the queue; its dispatch job is booked only when pages are left.
    const booked = await pendingJobTimes(jobName(accountId, utr));
    await localQueueIdle();
    if (booked.length > 0) await runDispatch(accountId, utr, true);
    await env.sink.eventsIdle();

    // Assess: every reader mailed exactly once, no bounce address again, the send completed; one notice, one summary.
    expect((await mailsTo(env.sink, readers)).map((mail) => mail.destination.to[0]).sort()).toEqual([...readers].sort());
    expect((await mailsTo(env.sink, bounces)).map((mail) => mail.destination.to[0]).sort()).toEqual([...bounces].sort());
    expect(await getSingleSend(accountId, utr)).toMatchObject({ status: 3, triggered: 20, bounces: 10, delivered: 10 });
    expect((await mailsTo(env.sink, [owner])).map((mail) => mail.subject)).toEqual(['Single send paused: Spring news', 'Single send completed: Spring news']);
  });

  describe('on the default limits (5% after 100 mails)', () => {
    const overridden = ['PAUSE_MIN_DELIVERIES', 'BOUNCE_PAUSE_RATE'] as const;
    beforeAll(() => {
      for (const name of overridden) delete process.env[name];
      resetConfig();
    });
    afterAll(() => {
      Object.assign(process.env, settings);
      resetConfig();
    });

    test('a send to 100, 10 of them bouncing, stops at its 6th bounce, before the minimum: 6 of any 100 is over 5%', async () => {
      // Prepare: the 10 bounces first, then 90 readers, 5 a batch.
      const { keys, utr, bounces, readers } = await bouncingAudience(10, 90);
      const accountId = keys.account_id;

      // Act
      await runDispatch(accountId, utr);

      // Assess: paused while its second batch went out (that batch's other bounces were mailed with it); no reader mailed.
      expect(await getSingleSend(accountId, utr)).toMatchObject({ status: 2, triggered: 10, bounces: 10, paused_reason: 'Paused: 6 of 6 mails bounced (100%, over the 5% limit).' });
      expect(await mailsTo(env.sink, readers)).toEqual([]);

      // Act: resume; judged afresh on what follows, the 90 readers go out.
      await resumeToTheEnd(keys, utr);

      // Assess: everyone mailed exactly once.
      await expectMailedOnce([...bounces, ...readers]);
      expect(await getSingleSend(accountId, utr)).toMatchObject({ status: 3, triggered: 100, bounces: 10, delivered: 90 });
      expect((await singleSendStats(accountId, utr)).stats).toMatchObject({ audience: 100, processed: 100, delivered: 90, bounces: 10 });
    }, 60_000);
  });

  describe('a pause that lands while a batch is being mailed', () => {
    const overridden = ['PAUSE_MIN_DELIVERIES', 'BOUNCE_PAUSE_RATE'] as const;
    beforeAll(() => {
      for (const name of overridden) delete process.env[name];
      // One batch of 50, mailed 10 a second: the 6th bounce is counted long before the batch is done.
      Object.assign(process.env, { DISPATCH_PAGE_SIZE: '50', SES_MAX_SEND_RATE: '10' });
      resetConfig();
      resetSendingSettings();
    });
    afterAll(() => {
      delete process.env.SES_MAX_SEND_RATE;
      Object.assign(process.env, settings);
      resetConfig();
      resetSendingSettings();
    });

    test('stops that batch within about a second; the rest waits for the resume and is mailed once', async () => {
      // Prepare: the 10 bounces first, then 40 readers, all in one batch.
      const { keys, utr, bounces, readers } = await bouncingAudience(10, 40);
      const accountId = keys.account_id;

      // Act
      await runDispatch(accountId, utr);

      // Assess: paused, and the batch stopped: most readers were never mailed.
      const paused = await getSingleSend(accountId, utr);
      expect(paused).toMatchObject({ status: 2, paused_reason: expect.stringMatching(/^Paused: 6 of \d+ mails bounced/) });
      const mailedWhilePaused = (await mailsTo(env.sink, [...bounces, ...readers])).length;
      expect(mailedWhilePaused).toBeGreaterThanOrEqual(6);
      expect(mailedWhilePaused).toBeLessThan(50);

      // Act: resume.
      await resumeToTheEnd(keys, utr);

      // Assess: everyone mailed exactly once, the batch settled once.
      await expectMailedOnce([...bounces, ...readers]);
      expect(await getSingleSend(accountId, utr)).toMatchObject({ status: 3, triggered: 50, bounces: 10, delivered: 40 });
      expect((await singleSendStats(accountId, utr)).stats).toMatchObject({ audience: 50, processed: 50, delivered: 40, bounces: 10 });
    }, 60_000);
  });

  test('a send that is not paused cannot be resumed; another account\'s send and a missing one are not found; credentials are required', async () => {
    const { keys, utr } = await bouncingAudience(0, 1);
    const other = await newAccount();

    const ready = await callSingleSends(keys, 'GET', 'single/send/resume', { query: { utr } });
    expect(ready).toEqual({
      status: 422,
      body: { status: 'failed', errors: { utr: ['The single send is not paused; only a running send paused for its bounces or complaints can be resumed.'] } },
    });
    await runDispatch(keys.account_id, utr);
    expect((await callSingleSends(keys, 'GET', 'single/send/resume', { query: { utr } })).status).toBe(422);
    expect(await callSingleSends(other, 'GET', 'single/send/resume', { query: { utr } })).toEqual({ status: 404, body: { status: 'failed', errors: 'Record not found' } });
    expect(await callSingleSends(keys, 'GET', 'single/send/resume', { query: { utr: 'no-such-send' } })).toEqual({ status: 404, body: { status: 'failed', errors: 'Record not found' } });
    expect(await callSingleSends(keys, 'GET', 'single/send/resume', { query: {} })).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    expect((await callSingleSends(undefined, 'GET', 'single/send/resume', { query: { utr } })).status).toBe(401);
    expect((await callSingleSends({ ...keys, secret_key: 'wrong' }, 'GET', 'single/send/resume', { query: { utr } })).status).toBe(401);
  });
});
