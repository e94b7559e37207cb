// The single-send deliverer stops when its Lambda's time runs short, or when a message's turn is over:
// what it mailed is counted, and the recipients it did not reach continue at once in a fresh message
// of the same batch, in the send's account's message group (never claimed, so nobody is mailed twice
// and nobody is lost).
import type { Context } from 'aws-lambda';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { resetConfig } from '../../shared/config';
import { getSingleSend } from '../../shared/single-sends/repository';
import { startDispatch } from '../../shared/single-sends/progress';
import { resetSendingSettings, sendingSettings } from '../../shared/delivery/settings';
import { resetSendBucket } from '../../shared/delivery/deliver';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { newAccount } from '../support/accounts';
import { sleep } from '../support/local-stack';
import { mailsTo, readySend, sqsEvent, startSendingEnvironment, startSesProxy, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

/** Poll an asynchronous condition every 50 ms until it holds, or fail naming it. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

afterEach(() => {
  delete process.env.DELIVERY_CONCURRENCY;
  delete process.env.SES_MAX_SEND_RATE;
  resetSendBucket();
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
  resetSendingSettings();
});

test('a deliverer out of time hands the rest on with its count, and everyone is mailed once', async () => {
  // Prepare: a running send, one message of 20 recipients, and a Lambda whose time is short once 5 mails went out.
  const account = await newAccount();
  const send = await readySend(account.account_id);
  expect(await startDispatch(account.account_id, send.utr)).toBe(true);
  const emails = Array.from({ length: 20 }, (_, i) => `short-time-${send.utr.slice(0, 8)}-${i}@example.com`);
  const message = {
    ref: { kind: 'single-send', accountId: account.account_id, utr: send.utr },
    recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } })),
    batchId: '0.0',
  };
  const proxy = await startSesProxy(env.sink, () => 'forward');
  process.env.SES_ENDPOINT = proxy.endpoint;
  process.env.DELIVERY_CONCURRENCY = '1';
  resetConfig();
  resetSendingSettings();
  const context = { getRemainingTimeInMillis: () => (proxy.calls.length >= 5 ? 1_000 : 60_000) } as unknown as Context;

  try {
    // Act
    const first = await deliverHandler(sqsEvent([message], 1), context);

    // Assess: the message is done (not redelivered whole); the rest arrive through the fresh message.
    expect(first).toEqual({ batchItemFailures: [] });
    expect(proxy.calls.length).toBeLessThan(20);
    await eventually(async () => (await mailsTo(env.sink, emails)).length >= 20, 20_000, 'all 20 mails');
    const mails = await mailsTo(env.sink, emails);
    expect(emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length)).toEqual(emails.map(() => 1));
    await eventually(async () => (await getSingleSend(account.account_id, send.utr)).triggered === 20, 10_000, 'the batch counted once, in full');
  } finally {
    await proxy.stop();
  }
});

test("a message's turn ends after DELIVERY_TURN_MS (2 s): the rest continue in a fresh message of its account's group, everyone mailed once", async () => {
  // Prepare: a running send, one message of 20 recipients, and mail going out at 4 a second, so the
  // 20 mails take at least 4.75 s: longer than a turn, whatever the machine's speed.
  const account = await newAccount();
  const send = await readySend(account.account_id);
  expect(await startDispatch(account.account_id, send.utr)).toBe(true);
  const emails = Array.from({ length: 20 }, (_, i) => `turn-${send.utr.slice(0, 8)}-${i}@example.com`);
  const message = {
    ref: { kind: 'single-send', accountId: account.account_id, utr: send.utr },
    recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } })),
    batchId: '0.0',
  };
  const rate = 4;
  process.env.SES_MAX_SEND_RATE = String(rate);
  resetSendingSettings();
  resetSendBucket();
  // The fresh messages, as the local queue hands them to the deliverer.
  const continued: { group: string | undefined; body: { recipients: unknown[]; settledBefore?: { sent: number } } }[] = [];
  const unregister = registerLocalConsumer('deliveries', async (event) => {
    continued.push(...event.Records.map((record) => ({ group: record.attributes.MessageGroupId, body: JSON.parse(record.body) as (typeof continued)[number]['body'] })));
    return deliverHandler(event);
  });
  const context = { getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

  try {
    // Act
    const first = await deliverHandler(sqsEvent([message], 1), context);

    // Assess: the message is done, having mailed at least its first recipient and no more than a
    // turn at the rate allows; the rest arrive through fresh messages in the account's group.
    expect(first).toEqual({ batchItemFailures: [] });
    await eventually(async () => (await mailsTo(env.sink, emails)).length >= 20, 30_000, 'all 20 mails');
    const mails = await mailsTo(env.sink, emails);
    expect(emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length)).toEqual(emails.map(() => 1));
    await eventually(async () => (await getSingleSend(account.account_id, send.utr)).triggered === 20, 10_000, 'the batch counted once, in full');
    const inFirstTurn = continued[0]?.body.settledBefore?.sent ?? 0;
    expect(inFirstTurn).toBeGreaterThanOrEqual(1);
    expect(inFirstTurn).toBeLessThanOrEqual((sendingSettings().deliveryTurnMs / 1000) * rate + 1);
    expect(continued[0]).toEqual({ group: String(account.account_id), body: expect.objectContaining({ batchId: '0.0', recipients: expect.any(Array) }) });
    expect(continued[0]?.body.recipients).toHaveLength(20 - inFirstTurn);
    expect(new Set(continued.map((record) => record.group))).toEqual(new Set([String(account.account_id)]));
  } finally {
    unregister();
    registerLocalConsumer('deliveries', (event) => deliverHandler(event));
  }
});
