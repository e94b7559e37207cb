// SES throttling and the send rate: a throttled mail is retried with backoff, handed back to the
// queue when it persists, never counted and never dropped; the rate limit holds.
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { resetConfig } from '../../shared/config';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { localDeadLetters, localQueueIdle } from '../../shared/queue/local-queue';
import { sendMessages } from '../../shared/queue/queue';
import { maxReceiveCount } from '../../shared/queue/queues';
import { resetSendBucket } from '../../shared/delivery/deliver';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { newAccount } from '../support/accounts';
import { mailsTo, readySend, sqsEvent, startSendingEnvironment, startSesProxy, type SesBehaviour, type SesProxy, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;
let proxy: SesProxy | undefined;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  for (const name of ['DELIVERY_CONCURRENCY', 'SES_MAX_SEND_RATE']) delete process.env[name];
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
  resetSendingSettings();
  resetSendBucket();
});

/** Route mail through a stand-in SES that answers by `behaviour`; settings from `env` apply. */
async function throughProxy(behaviour: (call: number) => SesBehaviour, settings: Record<string, string> = {}): Promise<SesProxy> {
  proxy = await startSesProxy(env.sink, behaviour);
  Object.assign(process.env, { SES_ENDPOINT: proxy.endpoint, ...settings });
  resetConfig();
  resetSendingSettings();
  resetSendBucket();
  return proxy;
}

async function runningBatch(count: number) {
  const account = await newAccount();
  const send = await readySend(account.account_id);
  expect(await startDispatch(account.account_id, send.utr)).toBe(true);
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `throttled-${tag}-${i}@example.com`);
  const message = {
    ref: { kind: 'single-send', accountId: account.account_id, utr: send.utr },
    recipients: emails.map((email) => ({ email, contactId: null, fields: {} })),
    batchId: '0.0',
  };
  return { accountId: account.account_id, utr: send.utr, emails, message };
}

async function mailCounts(emails: string[]): Promise<number[]> {
  const mails = await mailsTo(env.sink, emails);
  return emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length);
}

describe('SES throttling', () => {
  test('a batch SES keeps throttling is reported for redelivery, nothing is counted, and the claims are released', async () => {
    // Prepare
    const batch = await runningBatch(5);
    const stand = await throughProxy(() => 'throttle', { DELIVERY_CONCURRENCY: '1' });

    // Act
    const response = await deliverHandler(sqsEvent([batch.message], 1));

    // Assess: retried in process (SDK and backoff) before handing back; the rest was not attempted.
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'message-0' }] });
    expect(stand.calls.length).toBeGreaterThan(3);
    expect(stand.calls.every((call) => call === 'throttle')).toBe(true);
    expect(await mailCounts(batch.emails)).toEqual([0, 0, 0, 0, 0]);
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(0);
    expect((await getDispatchState(batch.accountId, batch.utr))?.settledBatches).toBe(0);

    // Act again: SES recovers; the redelivered batch mails everyone (the released claims allow it).
    await proxy?.stop();
    proxy = undefined;
    process.env.SES_ENDPOINT = env.sink.endpoint;
    resetConfig();
    expect(await deliverHandler(sqsEvent([batch.message], 2))).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual([1, 1, 1, 1, 1]);
    expect(await getSingleSend(batch.accountId, batch.utr)).toMatchObject({ triggered: 5 });
    expect(await getDispatchState(batch.accountId, batch.utr)).toMatchObject({ settledBatches: 1, sent: 5 });
  });

  test('through the queue: throttled for a while, then everyone is mailed once and counted once', async () => {
    const batch = await runningBatch(12);
    const stand = await throughProxy((call) => (call <= 8 ? 'throttle' : 'forward'), { DELIVERY_CONCURRENCY: '2' });

    await sendMessages('deliveries', [batch.message]);
    await localQueueIdle();

    expect(stand.calls.filter((call) => call === 'throttle')).toHaveLength(8);
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(12);
    expect(localDeadLetters('deliveries').filter((letter) => letter.body.includes(batch.utr))).toHaveLength(0);
  });

  test('throttled on the last receive, the unsent recipients continue in a new message of the same batch, never dropped', async () => {
    const batch = await runningBatch(4);
    // Two mails go through, then SES throttles until this test lets it recover.
    let recovered = false;
    await throughProxy((call) => (call <= 2 || recovered ? 'forward' : 'throttle'), { DELIVERY_CONCURRENCY: '1' });

    const response = await deliverHandler(sqsEvent([batch.message], maxReceiveCount));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual([1, 1, 0, 0]);
    recovered = true;
    await localQueueIdle();

    expect(await mailCounts(batch.emails)).toEqual([1, 1, 1, 1]);
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(4);
    // Settled once, with both parts' counts.
    expect(await getDispatchState(batch.accountId, batch.utr)).toMatchObject({ settledBatches: 1, sent: 4, skipped: 0 });
  });
});

describe('the send rate', () => {
  test('never exceeds SES_MAX_SEND_RATE', async () => {
    const batch = await runningBatch(25);
    const stand = await throughProxy(() => 'forward', { SES_MAX_SEND_RATE: '10', DELIVERY_CONCURRENCY: '8' });

    await deliverHandler(sqsEvent([batch.message]));
    // 25 mails take longer than a message's turn: the rest continue in a fresh message, through the queue.
    await localQueueIdle();

    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    const arrivals = stand.arrivals;
    // 25 mails at 10/s: the last one starts no sooner than 2.4 s after the first.
    expect(arrivals[arrivals.length - 1]! - arrivals[0]!).toBeGreaterThanOrEqual(2_300);
    // Starts are at least 100 ms apart; a window a little under a second allows for network jitter.
    for (const start of arrivals) expect(arrivals.filter((at) => at >= start && at < start + 950).length).toBeLessThanOrEqual(10);
  });
});
