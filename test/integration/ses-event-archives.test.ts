// Delivery events archived by the delivery stream (an S3 object of newline-delimited EventBridge
// events, announced on the ses-events queue by S3's `Object Created` event), through the ses-events
// function: each send's deliveries count once however often the object comes back, an object shares
// a batch with SES's own events, and an object that cannot be read fails its record alone.
import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { config } from '../../shared/config';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { archiveChunkEvents } from '../../shared/feedback/delivery-archive';
import { writeLocalObject } from '../../shared/object-store/local-object-store';
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { getSingleSend } from '../../shared/single-sends/repository';
import { takeLocalMessages } from '../../shared/queue/local-queue';
import { accountWithContacts, readySend, sqsEvent, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

const detailTypes: Record<string, string> = { Delivery: 'Email Delivered', Bounce: 'Email Bounced' };

function throughEventBridge(record: SesEventRecord): EventBridgeEvent<string, SesEventRecord> {
  return { version: '0', id: randomUUID(), 'detail-type': detailTypes[record.eventType ?? ''] ?? 'Email Sent', source: 'aws.ses', account: '000000000000', time: new Date().toISOString(), region: 'us-east-1', resources: [], detail: record };
}

function sesMail(ref: SendRef, to: string) {
  return { messageId: `ses-${randomUUID()}`, destination: [to], tags: { send_ref: [encodeSendRef(ref)], 'ses:configuration-set': ['email-service'] } };
}

const delivery = (ref: SendRef, email: string): SesEventRecord => ({ eventType: 'Delivery', mail: sesMail(ref, email), delivery: { recipients: [email] } });

/** Archive the events as the delivery stream does (one EventBridge event a line); the announcement S3 sends for it. */
function archived(lines: string[], key = `ses-delivery-events/2026/11/28/17/ses-delivery-events-1-2026-11-28-17-00-00-${randomUUID()}`) {
  const root = config().objectStoreDirectory as string;
  writeLocalObject(root, config().sesEventBucket, key, lines.map((line) => `${line}\n`).join(''));
  return objectCreated(key);
}

function objectCreated(key: string, bucket = config().sesEventBucket) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Object Created',
    source: 'aws.s3',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [`arn:aws:s3:::${bucket}`],
    detail: { version: '0', bucket: { name: bucket }, object: { key, size: 1 }, 'request-id': 'r', requester: '000000000000', reason: 'PutObject' },
  };
}

describe('archived delivery events', () => {
  test('an object with the deliveries of two sends counts each recipient once, and the same object again counts nothing', async () => {
    const audience = await accountWithContacts(5);
    const [first, second] = [await readySend(audience.accountId), await readySend(audience.accountId)];
    const refOf = (utr: string): SendRef => ({ kind: 'single-send', accountId: audience.accountId, utr });
    const [a, b, c, d, e] = audience.emails as [string, string, string, string, string];
    const repeated = JSON.stringify(throughEventBridge(delivery(refOf(first.utr), a)));
    // SES repeats one event, and the stream keeps both copies.
    const lines = [repeated, repeated, ...[b, c].map((email) => JSON.stringify(throughEventBridge(delivery(refOf(first.utr), email)))), ...[d, e].map((email) => JSON.stringify(throughEventBridge(delivery(refOf(second.utr), email))))];
    const announcement = archived(lines);

    expect(await sesEventsHandler(sqsEvent([announcement]))).toEqual({ batchItemFailures: [] });
    expect(await getSingleSend(audience.accountId, first.utr)).toMatchObject({ delivered: 3 });
    expect(await getSingleSend(audience.accountId, second.utr)).toMatchObject({ delivered: 2 });

    // S3 and EventBridge deliver at least once: the same announcement, and a second object of the same records.
    expect(await sesEventsHandler(sqsEvent([announcement, archived(lines)]))).toEqual({ batchItemFailures: [] });
    expect(await getSingleSend(audience.accountId, first.utr)).toMatchObject({ delivered: 3 });
    expect(await getSingleSend(audience.accountId, second.utr)).toMatchObject({ delivered: 2 });
  });

  test('an object larger than a chunk is applied whole', async () => {
    const audience = await accountWithContacts(3);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    // More lines than a chunk holds: repeats of three deliveries, so the object spans chunks.
    const events = audience.emails.map((email) => JSON.stringify(throughEventBridge(delivery(ref, email))));
    const lines = Array.from({ length: archiveChunkEvents + 2 }, (_, i) => events[i % 3] as string);

    expect(await sesEventsHandler(sqsEvent([archived(lines)]))).toEqual({ batchItemFailures: [] });
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ delivered: 3 });
  });

  test('an object and a bounce share a batch; an object that cannot be read, or of another bucket, fails its own record alone', async () => {
    const audience = await accountWithContacts(3);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [delivered, bounced, other] = audience.emails as [string, string, string];
    const bounce: SesEventRecord = { eventType: 'Bounce', mail: sesMail(ref, bounced), bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: bounced }] } };

    const response = await sesEventsHandler(
      sqsEvent([
        archived([JSON.stringify(throughEventBridge(delivery(ref, delivered)))]),
        throughEventBridge(bounce),
        objectCreated('ses-delivery-events/2026/11/28/17/never-written'),
        objectCreated(`ses-delivery-events/${randomUUID()}`, 'someone-elses-bucket'),
        // A line that is no SES event fails its object, after the object's other events counted.
        archived(['{"source":"aws.s3"}', JSON.stringify(throughEventBridge(delivery(ref, other)))]),
      ]),
    );

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'message-2' }, { itemIdentifier: 'message-3' }, { itemIdentifier: 'message-4' }] });
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ delivered: 2, bounces: 1 });
    expect((await listBouncedAddresses(audience.accountId)).map((entry) => entry.email_address)).toEqual([bounced]);
  });

  test('objects that do not fit in the time left go back on the queue as fresh messages, and the first is applied', async () => {
    const audience = await accountWithContacts(2);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [first, later] = audience.emails.map((email) => archived([JSON.stringify(throughEventBridge(delivery(ref, email)))])) as [ReturnType<typeof archived>, ReturnType<typeof archived>];
    takeLocalMessages('ses-events');

    // Less left than the reserve: the first object still goes, the next waits for a fresh message.
    const response = await sesEventsHandler(sqsEvent([first, later]), { getRemainingTimeInMillis: () => 1_000 });
    // Taken before the queue's consumer could gather it (it waits for its batching window).
    const handedOver = takeLocalMessages('ses-events');

    expect(response).toEqual({ batchItemFailures: [] });
    expect(handedOver.map((message) => JSON.parse(message.body) as unknown)).toEqual([later]);
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ delivered: 1 });
  });
});
