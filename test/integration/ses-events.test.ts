// SES feedback through the function the AWS path uses (SNS and EventBridge deliveries of
// configuration-set events): deliveries and hard bounces count, hard bounces and complaints suppress,
// and the next send skips the suppressed addresses.
import type { EventBridgeEvent, SNSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
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

function throughSns(record: SesEventRecord): SNSEvent {
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: 'arn:aws:sns:us-east-1:000000000000:ses-events:subscription',
        Sns: {
          Type: 'Notification',
          MessageId: 'sns-message',
          TopicArn: 'arn:aws:sns:us-east-1:000000000000:ses-events',
          Subject: 'Amazon SES Email Event Notification',
          Message: JSON.stringify(record),
          Timestamp: new Date().toISOString(),
          SignatureVersion: '1',
          Signature: 'signature',
          SigningCertUrl: 'https://sns.us-east-1.amazonaws.com/cert.pem',
          UnsubscribeUrl: 'https://sns.us-east-1.amazonaws.com/unsubscribe',
          MessageAttributes: {},
        },
      },
    ],
  };
}

function throughEventBridge(detailType: string, record: SesEventRecord): EventBridgeEvent<string, SesEventRecord> {
  return { version: '0', id: 'event', 'detail-type': detailType, source: 'aws.ses', account: '000000000000', time: new Date().toISOString(), region: 'us-east-1', resources: [], detail: record };
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

    // Act: SES reports a hard bounce (SNS), a complaint (EventBridge), a transient bounce and a repeated delivery.
    const bounce = { bounceType: 'Permanent', bounceSubType: 'NoEmail', bouncedRecipients: [{ emailAddress: bounced }] };
    await sesEventsHandler(throughSns({ eventType: 'Bounce', mail: sesMail(ref, bounced), bounce }));
    await sesEventsHandler(throughSns({ eventType: 'Bounce', mail: sesMail(ref, bounced), bounce }));
    await sesEventsHandler(
      throughEventBridge('Email Complaint Received', {
        eventType: 'Complaint',
        mail: sesMail(ref, complained),
        complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: complained }] },
      }),
    );
    await sesEventsHandler(
      throughSns({ eventType: 'Bounce', mail: sesMail(ref, fine), bounce: { bounceType: 'Transient', bouncedRecipients: [{ emailAddress: fine }] } }),
    );
    // SES delivers at least once: the sink's delivery of `fine` again.
    await sesEventsHandler(throughEventBridge('Email Delivered', { eventType: 'Delivery', mail: sesMail(ref, fine), delivery: { recipients: [fine] } }));

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

  test('deliveries count once per recipient, through SNS or EventBridge (the deployed path; the local sink publishes through EventBridge)', async () => {
    const audience = await accountWithContacts(2);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [ada, bob] = audience.emails as [string, string];

    await sesEventsHandler(throughEventBridge('Email Delivered', { eventType: 'Delivery', mail: sesMail(ref, ada), delivery: { recipients: [ada] } }));
    await sesEventsHandler(throughSns({ eventType: 'Delivery', mail: sesMail(ref, ada), delivery: { recipients: [ada] } }));
    await sesEventsHandler(throughSns({ eventType: 'Delivery', mail: sesMail(ref, bob), delivery: { recipients: [bob] } }));

    expect((await getSingleSend(audience.accountId, send.utr)).delivered).toBe(2);
  });

  test('an address that bounces after dispatch is skipped at send time', async () => {
    const audience = await accountWithContacts(2);
    const send = await readySend(audience.accountId);
    expect(await startDispatch(audience.accountId, send.utr)).toBe(true);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [late, fine] = audience.emails as [string, string];
    await sesEventsHandler(throughSns({ eventType: 'Complaint', mail: sesMail(ref, late), complaint: { complainedRecipients: [{ emailAddress: late.toUpperCase() }] } }));

    const response = await deliverHandler(sqsEvent([{ ref, recipients: audience.emails.map((email) => ({ email, contactId: null, fields: {} })), batchId: '0.0' }]));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await sentTo(audience.emails)).toEqual([fine]);
  });

  test('events without our tag (system mail) and opens change nothing; a malformed event fails for a retry', async () => {
    const audience = await accountWithContacts(1);
    const send = await readySend(audience.accountId);
    const ref: SendRef = { kind: 'single-send', accountId: audience.accountId, utr: send.utr };
    const [address] = audience.emails as [string];

    await sesEventsHandler(throughSns({ eventType: 'Bounce', mail: { ...sesMail(ref, address), tags: {} }, bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: address }] } }));
    await sesEventsHandler(throughSns({ eventType: 'Open', mail: sesMail(ref, address) }));

    expect(await listBouncedAddresses(audience.accountId)).toEqual([]);
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ bounces: 0, total_opens: 0, unique_opens: 0 });
    const broken = throughSns({});
    (broken.Records[0] as { Sns: { Message: string } }).Sns.Message = 'not json';
    await expect(sesEventsHandler(broken)).rejects.toThrow();
  });
});
