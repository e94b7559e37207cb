// SES feedback through the function the AWS path uses (configuration-set events put on the ses-events
// queue by EventBridge, taken in batches): deliveries and hard bounces count, hard bounces and
// complaints suppress, and the next send skips the suppressed addresses. A batch counts each send's
// deliveries in one write; a record that cannot be read fails alone.
import type { EventBridgeEvent, SQSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { singleSendCounterKeys } from '../../shared/single-sends/keys';
import { startCapacityMeter } from '../../bench/lib/capacity-meter';
import { accountWithContacts, mailsTo, readySend, sqsEvent, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

function sesMail(ref: SendRef, to: string) {
  return { messageId: `ses-${Math.random()}`, destination: [to], tags: { send_ref: [encodeSendRef(ref)], 'ses:configuration-set': ['email-service'] } };
}

const detailTypes: Record<string, string> = { Delivery: 'Email Delivered', Bounce: 'Email Bounced', Complaint: 'Email Complaint Received', Open: 'Email Opened' };

function throughEventBridge(record: SesEventRecord): EventBridgeEvent<string, SesEventRecord> {
  const detailType = detailTypes[record.eventType ?? ''] ?? 'Email Sent';
  return { version: '0', id: `event-${Math.random()}`, 'detail-type': detailType, source: 'aws.ses', account: '000000000000', time: new Date().toISOString(), region: 'us-east-1', resources: [], detail: record };
}

/** The records as the ses-events queue hands them over: each SES event's EventBridge event, whole, a message's body. */
function throughQueue(...records: SesEventRecord[]): SQSEvent {
  return sqsEvent(records.map(throughEventBridge));
}

async function sentTo(emails: string[]): Promise<string[]> {
  return (await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0] as string).sort();
}

describe('SES events', () => {
  test('a hard bounce and a complaint suppress their addresses for the next send; deliveries and bounces count once', async () => {
    // Prepare: a completed send to 3 contacts, whose delivery events (the local sink's) are in.
    const audience = await accountWithContacts(3);
    const [bounced, complained, fine] = audience.emails as [string, string, string];
    const target = { recipient_id: [{ id: String(audience.typeId), table: 'contacts_' as const }] };
    const first = await readySend(audience.accountId, target);
    await dispatchHandler({ accountId: audience.accountId, utr: first.utr });
    await localQueueIdle();
    await env.sink.eventsIdle();
    expect(await sentTo(audience.emails)).toEqual([...audience.emails].sort());
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: first.utr };

    // Act: SES reports a hard bounce (twice, in two batches), a complaint, a transient bounce and a repeated delivery.
    const bounce = { bounceType: 'Permanent', bounceSubType: 'NoEmail', bouncedRecipients: [{ emailAddress: bounced }] };
    expect(await sesEventsHandler(throughQueue({ eventType: 'Bounce', mail: sesMail(ref, bounced), bounce }))).toEqual({ batchItemFailures: [] });
    const responses = await sesEventsHandler(
      throughQueue(
        { eventType: 'Bounce', mail: sesMail(ref, bounced), bounce },
        { eventType: 'Complaint', mail: sesMail(ref, complained), complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: complained }] } },
        { eventType: 'Bounce', mail: sesMail(ref, fine), bounce: { bounceType: 'Transient', bouncedRecipients: [{ emailAddress: fine }] } },
        // SES delivers at least once: the sink's delivery of `fine` again.
        { eventType: 'Delivery', mail: sesMail(ref, fine), delivery: { recipients: [fine] } },
      ),
    );
    expect(responses).toEqual({ batchItemFailures: [] });

    // Assess: statistics (deliveries and bounces once per recipient, however often SES reports them).
    expect(await getSingleSend(audience.accountId, first.utr)).toMatchObject({ triggered: 3, delivered: 3, bounces: 1 });
    const suppressed = await listBouncedAddresses(audience.accountId);
    expect(suppressed.map(({ email_address, kind, detail, reports }) => ({ email_address, kind, detail, reports }))).toEqual(
      [
        { email_address: bounced, kind: 'bounce', detail: 'NoEmail', reports: 2 },
        { email_address: complained, kind: 'complaint', detail: 'abuse', reports: 1 },
      ].sort((a, b) => a.email_address.localeCompare(b.email_address)),
    );

    // Assess: the next send skips both.
    const second = await readySend(audience.accountId, target);
    await dispatchHandler({ accountId: audience.accountId, utr: second.utr });
    await localQueueIdle();
    expect(await sentTo(audience.emails)).toEqual([...audience.emails, fine].sort());
    expect(await getSingleSend(audience.accountId, second.utr)).toMatchObject({ status: 3, triggered: 1 });
  });

  test('a batch counts each send\'s deliveries once per recipient, in one counter write per send; a later batch repeating them counts nothing', async () => {
    const audience = await accountWithContacts(12);
    const [first, second] = [await readySend(audience.accountId), await readySend(audience.accountId)];
    const refOf = (utr: string): SendRef => ({ kind: 'single-send', accountId: audience.accountId, utr });
    const delivery = (utr: string, email: string): SesEventRecord => ({ eventType: 'Delivery', mail: sesMail(refOf(utr), email), delivery: { recipients: [email] } });
    const firstDeliveries = audience.emails.slice(0, 10).map((email) => delivery(first.utr, email));
    // SES repeats one of them within the batch.
    const batch = throughQueue(...firstDeliveries, firstDeliveries[3] as SesEventRecord, ...audience.emails.slice(10).map((email) => delivery(second.utr, email)));

    const meter = startCapacityMeter();
    let response: unknown;
    try {
      response = await sesEventsHandler(batch);
    } finally {
      meter.stop();
    }

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await getSingleSend(audience.accountId, first.utr)).toMatchObject({ delivered: 10 });
    expect(await getSingleSend(audience.accountId, second.utr)).toMatchObject({ delivered: 2 });
    // One marker per recipient, and each send's count added once, on one of its counter shards.
    const writes = (kind: RegExp) => meter.items().filter((item) => kind.test(item.key) && item.writes > 0);
    expect(writes(/\|mark#[^|]*#delivered$/).map((item) => item.writes)).toEqual(Array.from({ length: 12 }, () => 1));
    for (const utr of [first.utr, second.utr]) {
      const shards = new Set(singleSendCounterKeys(audience.accountId, utr).map((key) => `|${key.pk}|${key.sk}`));
      const counted = writes(/single-send-counters/).filter((item) => [...shards].some((shard) => item.key.endsWith(shard)));
      expect(counted).toHaveLength(1);
    }

    // The queue may hand the same events over again: nothing more is counted.
    expect(await sesEventsHandler(batch)).toEqual({ batchItemFailures: [] });
    expect(await getSingleSend(audience.accountId, first.utr)).toMatchObject({ delivered: 10 });
    expect(await getSingleSend(audience.accountId, second.utr)).toMatchObject({ delivered: 2 });
  });

  test('one EventBridge event invoked directly, as the rule did before the queue, still counts once', async () => {
    const audience = await accountWithContacts(1);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [ada] = audience.emails as [string];
    const event = throughEventBridge({ eventType: 'Delivery', mail: sesMail(ref, ada), delivery: { recipients: [ada] } });

    await sesEventsHandler(event);
    await sesEventsHandler(event);
    await sesEventsHandler(throughQueue(event.detail));

    expect((await getSingleSend(audience.accountId, send.utr)).delivered).toBe(1);
  });

  test('an address that bounces after dispatch is skipped at send time', async () => {
    const audience = await accountWithContacts(2);
    const send = await readySend(audience.accountId);
    expect(await startDispatch(audience.accountId, send.utr)).toBe(true);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [late, fine] = audience.emails as [string, string];
    await sesEventsHandler(throughQueue({ eventType: 'Complaint', mail: sesMail(ref, late), complaint: { complainedRecipients: [{ emailAddress: late.toUpperCase() }] } }));

    const response = await deliverHandler(sqsEvent([{ ref, recipients: audience.emails.map((email) => ({ email, contactId: null, fields: {} })), batchId: '0.0' }]));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await sentTo(audience.emails)).toEqual([fine]);
  });

  test('events without our tag (system mail) and opens change nothing; a malformed message fails alone, for its retries and the dead-letter queue', async () => {
    const audience = await accountWithContacts(1);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [address] = audience.emails as [string];
    const batch = throughQueue(
      { eventType: 'Bounce', mail: { ...sesMail(ref, address), tags: {} }, bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: address }] } },
      { eventType: 'Open', mail: sesMail(ref, address) },
      { eventType: 'Delivery', mail: sesMail(ref, address), delivery: { recipients: [address] } },
    );
    (batch.Records[1] as { body: string }).body = 'not json';

    expect(await sesEventsHandler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: 'message-1' }] });
    expect(await listBouncedAddresses(audience.accountId)).toEqual([]);
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ delivered: 1, bounces: 0, total_opens: 0, unique_opens: 0 });
  });
});
