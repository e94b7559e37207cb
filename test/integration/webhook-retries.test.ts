// Webhook retries and the per-webhook circuit breaker on a simulated clock: a failed delivery is
// acknowledged and queued again with a delay of at most SQS's 15 minutes, its attempt count and next
// attempt's time in the message, so none is held in flight; after 10 failures in a row a webhook's
// deliveries are parked in the table and probed on a slow schedule, and drained when it answers,
// while other accounts' webhooks go on at once. Every attempt keeps the Standard Webhooks signature.
import { getCircuit } from '../../shared/webhooks/circuit';
import { maxDeliveryAttempts, retryDelaysSeconds } from '../../shared/webhook-delivery/delivery';
import { emitWebhookEvent } from '../../shared/webhook-delivery/events';
import { parkedDeliveryShards } from '../../shared/webhooks/keys';
import { parkedDeliveries, parkedRetentionSeconds } from '../../shared/webhooks/parked-deliveries';
import { circuitFailureThreshold, probeDelaysSeconds } from '../../shared/webhook-delivery/circuit-service';
import { saveWebhook } from '../../shared/webhooks/webhook-service';
import { newAccount } from '../support/accounts';
import { startWebhookReceiver, verifyAsReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { webhookQueueOnClock, type QueuedWebhookMessage } from '../support/webhook-queue';

const queue = webhookQueueOnClock();
let receiver: WebhookReceiver;
let other: WebhookReceiver;

beforeAll(async () => {
  [receiver, other] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
});

afterAll(async () => {
  await Promise.all([receiver.close(), other.close()]);
});

beforeEach(() => {
  receiver.received.length = 0;
  other.received.length = 0;
  queue.responses.length = 0;
  receiver.answerAll(undefined);
});

async function accountWithWebhook(to: WebhookReceiver, path: string) {
  const { account_id: accountId } = await newAccount();
  const webhook = await saveWebhook(accountId, { url: to.url(path), events: ['open'] });
  return { accountId, webhook };
}

const open = (accountId: number, email: string) => emitWebhookEvent({ event: 'open', ref: { kind: 'single-send', accountId, utr: 'utr-1' }, email });

/** A message that is an attempt, not a hop of a longer wait: it carries no later time than it arrived at. */
function isAttempt(message: QueuedWebhookMessage): boolean {
  const notBefore = message.body.not_before;
  return message.body.payload !== undefined && (typeof notBefore !== 'number' || notBefore <= message.dueAt);
}

async function parkedCount(accountId: number, webhookId: number): Promise<number> {
  let count = 0;
  for (let shard = 0; shard < parkedDeliveryShards; shard++) count += (await parkedDeliveries(accountId, webhookId, shard, { limit: 1000, now: queue.now() })).parked.length;
  return count;
}

test('a failing delivery is retried by new messages of at most 15 minutes\' delay, on the whole schedule, then given up', async () => {
  const { accountId, webhook } = await accountWithWebhook(receiver, '/down');
  receiver.answerNext(...Array<number>(maxDeliveryAttempts).fill(503));
  const start = queue.now();

  await open(accountId, 'retried@example.com');
  const handed = await queue.runUntil();

  const attempts = handed.filter(isAttempt);
  // 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 12 h after the attempt before: 32 h 36 min from the first to the last.
  expect(attempts.map((message) => (message.dueAt - start) / 1000)).toEqual([0, 60, 360, 2_160, 9_360, 30_960, 74_160, 117_360]);
  expect(retryDelaysSeconds.reduce((sum, wait) => sum + wait, 0)).toBe(117_360);
  expect(attempts.map((message) => message.body.attempts)).toEqual([undefined, 1, 2, 3, 4, 5, 6, 7]);
  // Waits over 15 minutes are hops of at most 15 minutes: 1 + 7 + 23 + 47 + 47 of them.
  expect(handed).toHaveLength(8 + 125);
  expect(Math.max(...handed.map((message) => message.delaySeconds))).toBe(900);
  // Every message was acknowledged on its first receive: none waits in flight.
  expect(queue.responses.every((response) => response.batchItemFailures.length === 0)).toBe(true);
  expect(await queue.queued()).toEqual([]);

  // Eight signed attempts of one delivery: one webhook-id, the first message's.
  expect(receiver.received).toHaveLength(8);
  expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([handed[0]?.messageId]));
  expect(receiver.received.map((request) => verifyAsReceiver(request, webhook.secret))).toEqual(
    Array(8).fill({ payload: { event: 'open', email: 'retried@example.com', utr: 'utr-1', machine: false, timestamp: expect.any(String) } }),
  );
  // Eight failures in a row leave the circuit closed (it opens at 10).
  expect(await getCircuit(accountId, webhook.id)).toEqual({ failures: 8, probes: 0 });
});

test('ten failures in a row park a webhook\'s deliveries in the table; probes follow slowly; the one answered drains them; another account is not held up', async () => {
  const down = await accountWithWebhook(receiver, '/down');
  const elsewhere = await accountWithWebhook(other, '/up');
  // The first 10 attempts fail, then the first three probes; the fourth probe is answered.
  receiver.answerNext(...Array<number>(circuitFailureThreshold + 3).fill(500));
  const emails = Array.from({ length: 12 }, (_, n) => `reader-${n}@example.com`);

  for (const email of emails) await open(down.accountId, email);
  const start = queue.now();
  const first = await queue.next();
  await open(elsewhere.accountId, 'elsewhere@example.com');
  await queue.next();

  // Ten attempts, then the circuit opened: the 10th and the two after it are parked, not tried.
  expect(receiver.received).toHaveLength(circuitFailureThreshold);
  expect(await parkedCount(down.accountId, down.webhook.id)).toBe(3);
  expect(await getCircuit(down.accountId, down.webhook.id, { consistent: true })).toEqual({
    failures: circuitFailureThreshold,
    probes: 0,
    openSince: start,
    nextProbeAt: start + probeDelaysSeconds[0] * 1000,
  });
  // The other account's event went out at once, at the same instant.
  expect(other.received.map((request) => JSON.parse(request.body).email)).toEqual(['elsewhere@example.com']);
  expect(queue.now()).toBe(start);

  const handed = await queue.runUntil();

  // The nine retries due after a minute found the circuit open and were parked; only probes called the receiver.
  const probes = handed.filter((message) => message.body.probe_at !== undefined);
  // 1 min, 5 min, then every 15 min; the probe booked before the 2xx finds the circuit closed and stops.
  expect(probes.map((message) => (message.dueAt - start) / 1000)).toEqual([60, 360, 1_260, 2_160, 3_060]);
  const answered = receiver.received.slice(circuitFailureThreshold + 3);
  // Every event delivered once after the drain, under the id of its first message, signed.
  const idOf = new Map(first.map((message) => [(message.body.payload as { email: string }).email, message.messageId]));
  expect(answered.map((request) => JSON.parse(request.body).email).sort()).toEqual([...emails].sort());
  expect(answered.map((request) => request.headers['webhook-id']).sort()).toEqual(emails.map((email) => idOf.get(email)).sort());
  expect(answered.every((request) => 'payload' in verifyAsReceiver(request, down.webhook.secret))).toBe(true);
  expect(await parkedCount(down.accountId, down.webhook.id)).toBe(0);
  expect(await getCircuit(down.accountId, down.webhook.id, { consistent: true })).toEqual({ failures: 0, probes: 0, closedBy: start + 2_160_000 });
  expect(queue.responses.every((response) => response.batchItemFailures.length === 0)).toBe(true);
  expect(await queue.queued()).toEqual([]);
  expect(other.received).toHaveLength(1);
});

test('parked deliveries older than three days are given up; with none left the circuit closes one failure from opening again', async () => {
  const down = await accountWithWebhook(receiver, '/down');
  receiver.answerNext(...Array<number>(circuitFailureThreshold).fill(500));
  for (let n = 0; n < circuitFailureThreshold; n++) await open(down.accountId, `old-${n}@example.com`);
  const start = queue.now();
  await queue.next();
  // The retries of the first nine are parked a minute later, and the first probe fails.
  receiver.answerAll(500);
  await queue.runUntil(start + 60_000);
  const calls = receiver.received.length;

  // The next probe is received after every parked delivery has expired.
  queue.advance(parkedRetentionSeconds * 1000 + 120_000);
  const afterExpiry = await queue.runUntil();

  // The probe that found nothing left, and the one it had booked, which finds the circuit closed.
  expect(afterExpiry.filter((message) => message.body.probe_at !== undefined)).toHaveLength(2);
  // Nothing was left to try: that probe closed the circuit without a call.
  expect(calls).toBe(circuitFailureThreshold + 1);
  expect(receiver.received).toHaveLength(calls);
  expect(await parkedCount(down.accountId, down.webhook.id)).toBe(0);
  expect(await getCircuit(down.accountId, down.webhook.id, { consistent: true })).toEqual({ failures: circuitFailureThreshold - 1, probes: 0, closedBy: expect.any(Number) });
  expect(await queue.queued()).toEqual([]);
});
