// Webhook deliveries end to end in process: events from the public pages and from the emitter go
// through the local webhook queue to its consumer, which POSTs them, signed, to a real HTTP receiver;
// a failure is queued again as a retry, redirects are not followed, deleted webhooks are not called. Mail
// sent through the local SES sink brings its SES delivery event, and with it the `delivered` webhook.
import { createHmac } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { handler as deliverWebhooks } from '../../functions/webhook-deliver/handler';
import { localQueueIdle, registerLocalConsumer, takeLocalMessages } from '../../shared/queue/local-queue';
import type { SendRef } from '../../shared/ledger/send-ref';
import { deliverWebhook } from '../../shared/webhook-delivery/delivery';
import { emitWebhookEvent, type WebhookDeliveryMessage } from '../../shared/webhook-delivery/events';
import { addWebhook, getStoredWebhook, type WebhookEvent } from '../../shared/webhooks/repository';
import { decryptSecret, encryptSecret, newWebhookSecret } from '../../shared/webhooks/secret';
import { resealLegacySecrets } from '../../shared/webhooks/webhook-reseal-service';
import { config } from '../../shared/config';
import { resetClock, setClock } from '../../shared/time';
import { removeWebhook, saveWebhook } from '../../shared/webhooks/webhook-service';
import { newAccount } from '../support/accounts';
import { apiEvent } from '../support/events';
import { browserUserAgent, openPage, recipientToken, storedSingleSend } from '../support/recipient-pages';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sesEvents } from '../../functions/ses-events/handler';
import { clickUrl } from '../../shared/rendering/click-tracking';
import { encodeSendRef, sendRefTag } from '../../shared/ledger/send-ref';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { hexSecret, sealedAsBefore } from '../support/webhook-secrets';
import { hasValidSignature, startWebhookReceiver, verifyAsReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { contactFields, mailsTo, readySend } from '../support/sending';
import { startMailSink, stopMailSink } from '../support/senders';

let receiver: WebhookReceiver;
let sink: SesSink;

/** The deprecated `X-Webhook-Signature`, checked as receivers written before Standard Webhooks do. */
function hasLegacySignature(request: ReceivedWebhook, secret: string): boolean {
  const timestamp = String(request.headers['x-webhook-timestamp']);
  return request.headers['x-webhook-signature'] === `sha256=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`;
}
let unregister: () => void;
let unregisterDeliveries: () => void;
let consumerCalls = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  sink = await startMailSink();
  unregister = registerLocalConsumer('webhooks', (event) => {
    consumerCalls++;
    return deliverWebhooks(event);
  });
  unregisterDeliveries = registerLocalConsumer('deliveries', (event) => deliverHandler(event));
});

afterAll(async () => {
  unregisterDeliveries();
  unregister();
  await stopMailSink(sink);
  await receiver.close();
});

beforeEach(() => {
  receiver.received.length = 0;
});

async function accountWithWebhook(events: WebhookEvent[], path = '/hook') {
  const { account_id: accountId } = await newAccount();
  const webhook = await saveWebhook(accountId, { url: receiver.url(path), events });
  return { accountId, webhook };
}

/** One SQS record of the webhook queue, as Lambda hands it over, for calling the consumer directly. */
function webhookEvent(message: WebhookDeliveryMessage, receiveCount = 1): SQSEvent {
  return {
    Records: [
      {
        messageId: 'delivery-1',
        receiptHandle: 'delivery-1#not-in-flight',
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: String(Date.now()), SenderId: 'TEST', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhooks',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

/** The retries the consumer queued (taken off the local queue, so none is delivered later): each body and its delay. */
function takeRetries(): { body: unknown; delaySeconds: number }[] {
  return takeLocalMessages('webhooks').map((message) => ({ body: JSON.parse(message.body), delaySeconds: message.delaySeconds }));
}

const payload = (email: string): WebhookDeliveryMessage['payload'] => ({ event: 'open', email, utr: 'utr-1', timestamp: '2026-01-01T00:00:00.000000Z' });

test('an open counted by the pixel reaches a subscribed webhook as one signed JSON object', async () => {
  const { accountId, webhook } = await accountWithWebhook(['open', 'unsubscribe']);
  const ref = await storedSingleSend(accountId);

  await openPage('public/open', recipientToken(ref, 'reader@example.com', null));
  await localQueueIdle();

  expect(receiver.received).toHaveLength(1);
  const [request] = receiver.received as [(typeof receiver.received)[number]];
  expect(request.path).toBe('/hook');
  expect(JSON.parse(request.body)).toEqual({ event: 'open', email: 'reader@example.com', utr: ref.utr, machine: false, timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/) });
  expect(request.headers).toMatchObject({
    'content-type': 'application/json',
    'webhook-id': expect.any(String),
    'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
    'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    // The headers of before, deprecated, until receivers have moved to the standard ones.
    'x-webhook-id': request.headers['webhook-id'],
    'x-webhook-timestamp': request.headers['webhook-timestamp'],
    'x-webhook-signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
  });
  expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  expect(verifyAsReceiver(request, webhook.secret)).toEqual({ payload: JSON.parse(request.body) });
  expect(hasLegacySignature(request, webhook.secret)).toBe(true);
});

test('the Standard Webhooks library refuses a delivery replayed under another id, a changed body and another secret', async () => {
  const { accountId, webhook } = await accountWithWebhook(['open']);
  const ref = await storedSingleSend(accountId);
  await openPage('public/open', recipientToken(ref, 'replayed@example.com', null));
  await localQueueIdle();
  const [request] = receiver.received as [(typeof receiver.received)[number]];
  const other = await saveWebhook(accountId, { url: receiver.url(), events: ['open'] });

  const replayed = { ...request, headers: { ...request.headers, 'webhook-id': `${String(request.headers['webhook-id'])}-again` } };
  const tampered = { ...request, body: request.body.replace('replayed@example.com', 'someone@example.com') };
  expect([verifyAsReceiver(replayed, webhook.secret), verifyAsReceiver(tampered, webhook.secret), verifyAsReceiver(request, other.secret)]).toEqual([
    { refused: 'No matching signature found' },
    { refused: 'No matching signature found' },
    { refused: 'No matching signature found' },
  ]);
  expect(hasValidSignature(request, webhook.secret)).toBe(true);
});

test('a secret made before Standard Webhooks (whsec_ and 64 hex digits) still verifies with the library', async () => {
  const { account_id: accountId } = await newAccount();
  const secret = hexSecret();
  const webhook = await addWebhook(accountId, { url: receiver.url('/hex'), events: ['open'], encryptedSecret: encryptSecret(secret) }, 10);
  const message = { account_id: accountId, webhook_id: webhook?.id ?? 0, payload: payload('hex@example.com') };

  expect(await deliverWebhooks(webhookEvent(message))).toEqual({ batchItemFailures: [] });

  expect(receiver.received.map((request) => [request.path, verifyAsReceiver(request, secret), hasLegacySignature(request, secret)])).toEqual([
    ['/hex', { payload: payload('hex@example.com') }, true],
  ]);
});

test('a secret stored sealed under the token-signing key waits for the re-seal, then delivers and verifies as before', async () => {
  const { account_id: accountId } = await newAccount();
  const secret = hexSecret();
  const stored = sealedAsBefore(secret, config().tokenSigningKey);
  const webhook = await addWebhook(accountId, { url: receiver.url('/sealed-before'), events: ['open'], encryptedSecret: stored }, 10);
  const untouched = await addWebhook(accountId, { url: receiver.url('/sealed-now'), events: ['open'], encryptedSecret: encryptSecret(newWebhookSecret()) }, 10);
  const message = { account_id: accountId, webhook_id: webhook?.id ?? 0, payload: payload('sealed@example.com') };

  // The deliverer holds no token-signing key: the attempt fails and is retried on the backoff.
  expect(await deliverWebhooks(webhookEvent(message))).toEqual({ batchItemFailures: [] });
  expect(receiver.received).toEqual([]);
  const [retry] = takeRetries();
  expect(retry).toEqual({ body: { ...message, delivery_id: 'delivery-1', attempts: 1, not_before: expect.any(Number) }, delaySeconds: 60 });

  const report = await resealLegacySecrets(accountId);
  const again = await resealLegacySecrets(accountId);

  expect(report).toEqual({ accounts: { first: accountId, last: expect.any(Number) }, resealed: 1, unreadable: [] });
  expect(again).toEqual({ ...report, accounts: { first: accountId, last: expect.any(Number) }, resealed: 0 });
  const resealed = await getStoredWebhook(accountId, webhook?.id ?? 0);
  expect(resealed?.encrypted_secret).toMatch(/^v2\./);
  expect(decryptSecret(resealed?.encrypted_secret ?? '')).toBe(secret);
  expect((await getStoredWebhook(accountId, untouched?.id ?? 0))?.encrypted_secret).not.toMatch(/^v1\./);
  // The retry, received a minute later as a message of its own.
  const retried = webhookEvent(retry?.body as WebhookDeliveryMessage);
  setClock(() => new Date(Date.now() + 60_000));
  try {
    expect(await deliverWebhooks({ Records: retried.Records.map((record) => ({ ...record, messageId: 'retry-1' })) })).toEqual({ batchItemFailures: [] });
  } finally {
    resetClock();
  }
  expect(receiver.received.map((request) => [request.path, request.headers['webhook-id'], verifyAsReceiver(request, secret)])).toEqual([
    ['/sealed-before', 'delivery-1', { payload: payload('sealed@example.com') }],
  ]);
});

test('a secret sealed under a token-signing key no longer in the set is reported, not re-sealed', async () => {
  const { account_id: accountId } = await newAccount();
  const stored = sealedAsBefore(hexSecret(), 'a-signing-key-long-since-removed-0123456789');
  const webhook = await addWebhook(accountId, { url: receiver.url(), events: ['open'], encryptedSecret: stored }, 10);

  expect((await resealLegacySecrets(accountId)).unreadable).toEqual([{ account_id: accountId, webhook_id: webhook?.id }]);
  expect((await getStoredWebhook(accountId, webhook?.id ?? 0))?.encrypted_secret).toBe(stored);
});

test('a one-click unsubscribe reaches only the webhooks subscribed to it, once', async () => {
  const { accountId } = await accountWithWebhook(['unsubscribe'], '/unsubscribes');
  await saveWebhook(accountId, { url: receiver.url('/opens-only'), events: ['open'] });
  const ref = await storedSingleSend(accountId);
  const token = recipientToken(ref, 'leaver@example.com', null);

  for (let i = 0; i < 2; i++) await publicPages(apiEvent({ method: 'POST', path: 'public/unsubscribe', query: { token } }));
  await localQueueIdle();

  // The second POST changes nothing, so nothing more is told.
  expect(receiver.received.map((request) => [request.path, JSON.parse(request.body).event])).toEqual([['/unsubscribes', 'unsubscribe']]);
});

test('a followed tracked link reaches a click webhook with the link', async () => {
  const { accountId, webhook } = await accountWithWebhook(['click']);
  const ref = await storedSingleSend(accountId);
  const tracked = new URL(clickUrl(recipientToken(ref, 'clicker@example.com', null), 'https://shop.example.com/sale?id=7'));

  const answer = await publicPages(apiEvent({ method: 'GET', path: 'public/click', query: Object.fromEntries(tracked.searchParams), headers: { 'user-agent': browserUserAgent } }));
  await localQueueIdle();

  expect(answer.statusCode).toBe(302);
  expect(receiver.received.map((request) => JSON.parse(request.body))).toEqual([
    { event: 'click', email: 'clicker@example.com', utr: ref.utr, url: 'https://shop.example.com/sale?id=7', machine: false, timestamp: expect.any(String) },
  ]);
  expect(hasValidSignature(receiver.received[0] as (typeof receiver.received)[number], webhook.secret)).toBe(true);
});

test('nothing is queued for an account whose webhooks do not subscribe to the event', async () => {
  const { accountId } = await accountWithWebhook(['bounce']);
  const silent = await newAccount();
  const calls = consumerCalls;

  await emitWebhookEvent({ event: 'open', ref: { kind: 'single-send', accountId, utr: 'utr-1' }, email: 'a@example.com' });
  await emitWebhookEvent({ event: 'open', ref: { kind: 'single-send', accountId: silent.account_id, utr: 'utr-2' }, email: 'a@example.com' });
  await localQueueIdle();

  expect(consumerCalls).toBe(calls);
  expect(receiver.received).toEqual([]);
});

test('a webhook event that cannot be queued is logged and never fails the caller', async () => {
  const { accountId } = await accountWithWebhook(['open']);
  // Larger than an SQS message may be: the queue refuses it.
  const email = `${'x'.repeat(300_000)}@example.com`;

  await expect(emitWebhookEvent({ event: 'open', ref: { kind: 'single-send', accountId, utr: 'utr-1' }, email })).resolves.toBeUndefined();
  await localQueueIdle();

  expect(receiver.received).toEqual([]);
});

test('a click carries its url; other events carry none; automation mail names the automation', async () => {
  const { accountId } = await accountWithWebhook(['click', 'delivered']);
  const automation: SendRef = { kind: 'automation-step', accountId, automationUtr: 'automation-utr', stepUtr: 'step-utr' };
  const at = new Date('2026-03-04T05:06:07.890Z');

  await emitWebhookEvent({ event: 'click', ref: { kind: 'single-send', accountId, utr: 'send-utr' }, email: 'c@example.com', url: 'https://shop.example.com/?a=1', at });
  await emitWebhookEvent({ event: 'delivered', ref: automation, email: 'd@example.com', url: 'https://ignored.example.com/', at });
  await localQueueIdle();

  expect(receiver.received.map((request) => JSON.parse(request.body))).toEqual([
    { event: 'click', email: 'c@example.com', utr: 'send-utr', url: 'https://shop.example.com/?a=1', machine: false, timestamp: '2026-03-04T05:06:07.890000Z' },
    { event: 'delivered', email: 'd@example.com', utr: 'automation-utr', timestamp: '2026-03-04T05:06:07.890000Z' },
  ]);
});

test('SES delivery, bounce and complaint events reach the webhooks subscribed to them', async () => {
  const { accountId } = await accountWithWebhook(['delivered', 'bounce', 'complaint']);
  const ref = await storedSingleSend(accountId);
  const mail = { messageId: 'ses-1', destination: ['to@example.com'], tags: { [sendRefTag]: [encodeSendRef(ref)] } };
  const records: SesEventRecord[] = [
    { eventType: 'Delivery', mail, delivery: { recipients: ['to@example.com'] } },
    { eventType: 'Bounce', mail, bounce: { bounceType: 'Transient', bouncedRecipients: [{ emailAddress: 'to@example.com' }] } },
    { eventType: 'Bounce', mail, bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'to@example.com' }] } },
    { eventType: 'Complaint', mail, complaint: { complainedRecipients: [{ emailAddress: 'to@example.com' }] } },
  ];

  for (const detail of records) {
    await sesEvents({ version: '0', id: 'e', 'detail-type': 'SES', source: 'aws.ses', account: '000000000000', time: '', region: 'us-east-1', resources: [], detail });
  }
  await localQueueIdle();

  // The transient bounce is SES's to retry: no event.
  expect(receiver.received.map((request) => JSON.parse(request.body))).toEqual(
    ['delivered', 'bounce', 'complaint'].map((event) => ({ event, email: 'to@example.com', utr: ref.utr, timestamp: expect.any(String) })),
  );
});

test('mail the local sink takes for an ordinary address reaches a delivered webhook, verified as a receiver would, and counts delivered once', async () => {
  const { accountId, webhook } = await accountWithWebhook(['delivered']);
  const type = await addContactType(accountId, 'Readers');
  const reader = `reader-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await addContact(accountId, contactFields(type.id, reader), {});
  const send = await readySend(accountId, { recipient_id: [{ id: String(type.id), table: 'contacts_' }] });

  // The send is mailed and settled; then SES's delivery event reaches ses-events, which queues the webhook.
  await dispatchHandler({ accountId, utr: send.utr });
  await localQueueIdle();
  await sink.eventsIdle();
  await localQueueIdle();

  expect((await mailsTo(sink, [reader])).map((mail) => mail.destination.to)).toEqual([[reader]]);
  expect(receiver.received.map((request) => JSON.parse(request.body))).toEqual([
    { event: 'delivered', email: reader, utr: send.utr, timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/) },
  ]);
  // The standardwebhooks library, with the secret shown at save, accepts it.
  expect(receiver.received.map((request) => verifyAsReceiver(request, webhook.secret))).toEqual([{ payload: JSON.parse(receiver.received[0]?.body ?? 'null') }]);
  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 1, delivered: 1 });
});

test('a receiver that fails or redirects has the delivery queued again as a retry, and no redirect is followed', async () => {
  const { accountId, webhook } = await accountWithWebhook(['open']);
  const message = { account_id: accountId, webhook_id: webhook.id, payload: payload('r@example.com') };

  receiver.answerNext(500);
  expect(await deliverWebhooks(webhookEvent(message))).toEqual({ batchItemFailures: [] });
  receiver.answerNext(302);
  // A message queued before retries were messages of their own: its receives count its attempts.
  expect(await deliverWebhooks(webhookEvent(message, 3))).toEqual({ batchItemFailures: [] });
  // The last attempt fails too: the delivery is given up, nothing is queued.
  receiver.answerNext(503);
  expect(await deliverWebhooks(webhookEvent({ ...message, delivery_id: 'first-id', attempts: 7 }))).toEqual({ batchItemFailures: [] });

  expect(takeRetries()).toEqual([
    { body: { ...message, delivery_id: 'delivery-1', attempts: 1, not_before: expect.any(Number) }, delaySeconds: 60 },
    // 30 minutes to wait: the first 15 as this message's delay, the rest as another's.
    { body: { ...message, delivery_id: 'delivery-1', attempts: 3, not_before: expect.any(Number) }, delaySeconds: 900 },
  ]);
  expect(receiver.received.map((request) => [request.path, request.headers['webhook-id']])).toEqual([
    ['/hook', 'delivery-1'],
    ['/hook', 'delivery-1'],
    ['/hook', 'first-id'],
  ]);
});

test('a receiver that does not answer in time fails the attempt', async () => {
  receiver.answerNext(0);
  const outcome = await deliverWebhook({ url: receiver.url('/hung'), secret: newWebhookSecret(), deliveryId: 'd', payload: payload('h@example.com'), timeoutMs: 300 });
  expect(outcome).toEqual({ delivered: false, detail: 'no complete answer within 300 ms' });
  expect(receiver.received.map((request) => request.path)).toEqual(['/hung']);
});

test('a receiver that cannot be reached fails the attempt without failing anything else', async () => {
  const { account_id: accountId } = await newAccount();
  // Port 9 (discard) has no listener here: the connection is refused.
  const webhook = await saveWebhook(accountId, { url: 'http://127.0.0.1:9/hook', events: ['open'] });
  const message = { account_id: accountId, webhook_id: webhook.id, payload: payload('x@example.com') };
  expect(await deliverWebhooks(webhookEvent(message))).toEqual({ batchItemFailures: [] });
  expect(takeRetries()).toEqual([{ body: { ...message, delivery_id: 'delivery-1', attempts: 1, not_before: expect.any(Number) }, delaySeconds: 60 }]);
});

test('a deleted webhook is not called, even for events queued before its delete', async () => {
  const { accountId, webhook } = await accountWithWebhook(['open']);
  await removeWebhook(accountId, webhook.id);

  expect(await deliverWebhooks(webhookEvent({ account_id: accountId, webhook_id: webhook.id, payload: payload('gone@example.com') }))).toEqual({ batchItemFailures: [] });
  await emitWebhookEvent({ event: 'open', ref: { kind: 'single-send', accountId, utr: 'utr-1' }, email: 'gone@example.com' });
  await localQueueIdle();

  expect(receiver.received).toEqual([]);
});
