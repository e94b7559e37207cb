// The SES mailbox simulator through the real pipeline: the dispatcher and deliverer mail the sink, the
// sink publishes what SES would (for the simulator's addresses and for ordinary ones) to the ses-events
// function, and the function suppresses and counts. A bounce is never counted delivered, as on SES.
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { startSesSink } from '../../infra/local/ses-sink';
import type { SesEventBridgeEvent } from '../../infra/local/ses-simulator';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { deliverToRecipients } from '../../shared/delivery/deliver';
import { singleSendContent } from '../../shared/delivery/send-content';
import { singleSendStats } from '../../shared/statistics/report';
import { getSingleSend } from '../../shared/single-sends/repository';
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { newAccount } from '../support/accounts';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

/** A fresh account whose one contact type holds `emails`. */
async function audienceOf(emails: readonly string[]) {
  const account = await newAccount();
  const type = await addContactType(account.account_id, 'Simulated');
  for (const email of emails) await addContact(account.account_id, contactFields(type.id, email), {});
  return { accountId: account.account_id, target: { recipient_id: [{ id: String(type.id), table: 'contacts_' as const }] } };
}

/** Labels no other run of this file used, so its mail is told apart in the process's one sink store. */
const label = () => Math.random().toString(36).slice(2, 8);

describe('the SES mailbox simulator on the local sink', () => {
  test('bounce@ and suppressionlist@ become bounce suppressions and count as bounces, complaint@ a complaint; only delivered mail counts delivered', async () => {
    // Prepare: 3 ordinary readers and one of each simulator address.
    const tag = label();
    const simulated = {
      bounceOne: `bounce+${tag}-1@simulator.amazonses.com`,
      bounceTwo: `bounce+${tag}-2@simulator.amazonses.com`,
      suppressed: `suppressionlist+${tag}@simulator.amazonses.com`,
      complaint: `complaint+${tag}@simulator.amazonses.com`,
      success: `success+${tag}@simulator.amazonses.com`,
      ooto: `ooto+${tag}@simulator.amazonses.com`,
    };
    const readers = [1, 2, 3].map((n) => `reader-${tag}-${n}@example.com`);
    const everyone = [...readers, ...Object.values(simulated)];
    const { accountId, target } = await audienceOf(everyone);
    const send = await readySend(accountId, target);

    // Act: the send runs to completion, then the sink's events reach the feedback function.
    await dispatchHandler({ accountId, utr: send.utr });
    await localQueueIdle();
    await env.sink.eventsIdle();

    // Assess: everyone was mailed once; the bounces and the complaint are on the suppression list.
    expect((await mailsTo(env.sink, everyone)).map((mail) => mail.destination.to[0]).sort()).toEqual([...everyone].sort());
    const suppressed = await listBouncedAddresses(accountId);
    expect(suppressed.map(({ email_address, kind, detail, reports }) => ({ email_address, kind, detail, reports }))).toEqual(
      [
        { email_address: simulated.bounceOne, kind: 'bounce', detail: 'General', reports: 1 },
        { email_address: simulated.bounceTwo, kind: 'bounce', detail: 'General', reports: 1 },
        { email_address: simulated.suppressed, kind: 'bounce', detail: 'Suppressed', reports: 1 },
        { email_address: simulated.complaint, kind: 'complaint', detail: 'abuse', reports: 1 },
      ].sort((a, b) => a.email_address.localeCompare(b.email_address)),
    );
    // Delivered: the 3 readers, success@, ooto@ and complaint@, each by its SES delivery event.
    expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 9, delivered: 6, bounces: 3 });
    expect((await singleSendStats(accountId, send.utr)).stats).toMatchObject({ audience: 9, processed: 9, delivered: 6, bounces: 3, complaints: 1 });

    // Assess: the next send skips the suppressed addresses.
    const next = await readySend(accountId, target);
    await dispatchHandler({ accountId, utr: next.utr });
    await localQueueIdle();
    await env.sink.eventsIdle();
    expect(await getSingleSend(accountId, next.utr)).toMatchObject({ status: 3, triggered: 5, delivered: 5, bounces: 0 });
  });

  test('a delivery without a batch (as automation steps run) counts delivered only what SES delivered', async () => {
    const tag = label();
    const bounced = `bounce+${tag}@simulator.amazonses.com`;
    const reader = `reader-${tag}@example.com`;
    const success = `success+${tag}@simulator.amazonses.com`;
    const { accountId } = await audienceOf([]);
    const send = await readySend(accountId);
    const ref = { kind: 'single-send', accountId, utr: send.utr } as const;
    const recipients = [bounced, reader, success].map((email) => ({ email, contactId: null, fields: {} }));

    const outcome = await deliverToRecipients(ref, singleSendContent(send), recipients);
    await env.sink.eventsIdle();

    expect(outcome).toMatchObject({ sent: 3, skipped: 0, failed: [], deferred: [], uncertain: 0 });
    expect(await getSingleSend(accountId, send.utr)).toMatchObject({ triggered: 3, delivered: 2, bounces: 1 });
    expect((await listBouncedAddresses(accountId)).map((entry) => entry.email_address)).toEqual([bounced]);
  });

  test('the sink publishes SES events with the call\'s tags for every mail it accepts, and none for a refused one', async () => {
    const published: SesEventBridgeEvent[] = [];
    const sink = await startSesSink({ port: 0, events: async (event) => void published.push(event) });
    const client = new SESv2Client({ endpoint: sink.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const send = (to: string, subject = 'Hello') =>
      client.send(
        new SendEmailCommand({
          FromEmailAddress: 'Acme <news@acme.example>',
          Destination: { ToAddresses: [to] },
          Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: 'Hi' } } } },
          ConfigurationSetName: 'email-service',
          EmailTags: [{ Name: 'send_ref', Value: 'ref-1' }],
        }),
      );
    try {
      const { MessageId } = await send('bounce+tags@simulator.amazonses.com');
      const { MessageId: readerMessageId } = await send('Reader <reader@example.com>');
      // Refused by the sink (no subject): SES took nothing, so it publishes nothing.
      await expect(send('complaint@simulator.amazonses.com', '')).rejects.toThrow();
      await sink.eventsIdle();

      expect(published).toHaveLength(2);
      expect(published[0]).toMatchObject({
        'detail-type': 'Email Bounced',
        source: 'aws.ses',
        detail: {
          eventType: 'Bounce',
          mail: {
            messageId: MessageId,
            source: 'Acme <news@acme.example>',
            destination: ['bounce+tags@simulator.amazonses.com'],
            tags: { send_ref: ['ref-1'], 'ses:configuration-set': ['email-service'], 'ses:from-domain': ['acme.example'] },
          },
          bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'bounce+tags@simulator.amazonses.com' }] },
        },
      });
      // An ordinary address: SES delivers it and says so.
      expect(published[1]).toMatchObject({
        'detail-type': 'Email Delivered',
        source: 'aws.ses',
        detail: {
          eventType: 'Delivery',
          mail: { messageId: readerMessageId, destination: ['Reader <reader@example.com>'], tags: { send_ref: ['ref-1'], 'ses:configuration-set': ['email-service'] } },
          delivery: { recipients: ['reader@example.com'], smtpResponse: '250 2.6.0 Message received' },
        },
      });
    } finally {
      client.destroy();
      await sink.stop();
    }
  });
});
