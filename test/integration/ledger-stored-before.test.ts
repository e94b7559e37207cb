// The ledger entries and event markers stored before the ledger was kept by address (one partition
// per send and recipient), on DynamoDB Local: a batch delivered again after the upgrade mails nobody
// such an entry holds, an event of such a mail is not counted once more, the engagement segments and
// the resend read them, and the contact's activity still lists the mail with its delivery.
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { recipientMail } from '../../shared/delivery/recipient-mail';
import { handleSesEvents } from '../../shared/feedback/ses-event-batch';
import { addContact } from '../../shared/audience/contact-service';
import { addContactType } from '../../shared/contact-types/repository';
import { recordActivity } from '../../shared/contacts/activity';
import { legacyEventMarkerKey, legacySendLedgerKey } from '../../shared/ledger/keys';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { engagementFactsOf } from '../../shared/segments/engagement-facts';
import type { Condition } from '../../shared/segments/rules';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { recordSendEvent } from '../../shared/statistics/event-counts';
import { isoTimestamp } from '../../shared/time';
import { putItem } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { callContacts } from '../support/contacts';
import { contactFields, mailsTo, readySend, sqsEvent, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

const expiresAt = () => Math.floor(Date.now() / 1000) + 180 * 24 * 3600;

/** A ledger entry as the code before wrote it, marked sent, taken by `batchId`'s first receive. */
async function storedLedgerEntry(ref: SendRef, email: string, batchId: string, claimedAt = isoTimestamp()): Promise<void> {
  const key = legacySendLedgerKey(ref.accountId, encodeSendRef(ref), email);
  await putItem({
    Item: { ...key, entity: 'send-ledger', state: 'sent', claim_id: 'claim-before', email_address: email, claimed_at: claimedAt, batch_id: batchId, holder_message: 'message-0', holder_receive: 1, expires_at: expiresAt() },
  });
}

/** An event marker as the code before wrote it. */
async function storedMarker(ref: SendRef, email: string, event: string, countedAt = isoTimestamp()): Promise<void> {
  const key = legacyEventMarkerKey(ref.accountId, encodeSendRef(ref), email, event);
  await putItem({ Item: { ...key, entity: 'send-event-marker', counted_at: countedAt, expires_at: expiresAt() } });
}

async function runningSend() {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Readers');
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], subject: 'Spring sale' });
  expect(await startDispatch(keys.account_id, send.utr)).toBe(true);
  const ref: SendRef = { kind: 'single-send', accountId: keys.account_id, utr: send.utr };
  const tag = Math.random().toString(36).slice(2, 8);
  return { keys, type, send, ref, emails: [`before-${tag}@example.com`, `after-${tag}@example.com`] };
}

test('a batch delivered again after the upgrade mails nobody an entry stored before holds, and counts them as its own', async () => {
  const { keys, send, ref, emails } = await runningSend();
  const [before, after] = emails as [string, string];
  await storedLedgerEntry(ref, before, '0.0');
  const message = { ref, recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: {} })), batchId: '0.0' };

  expect(await deliverHandler(sqsEvent([message], 2))).toEqual({ batchItemFailures: [] });

  expect((await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0])).toEqual([after]);
  expect(await getDispatchState(keys.account_id, send.utr)).toMatchObject({ settledBatches: 1, sent: 2, skipped: 0 });
});

test('a batch of a send dispatched since the upgrade says so, and its deliverer does not look in the layout before (none of its entries can be there)', async () => {
  const { keys, send, ref, emails } = await runningSend();
  expect(await getDispatchState(keys.account_id, send.utr)).toMatchObject({ ledgerByAddress: true });
  // An entry in the layout before, which only a send dispatched before the upgrade could have.
  await storedLedgerEntry(ref, emails[0] as string, '0.0');
  const message = { ref, recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: {} })), batchId: '0.0', ledgerByAddress: true };

  expect(await deliverHandler(sqsEvent([message], 1))).toEqual({ batchItemFailures: [] });

  expect((await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0]).sort()).toEqual([...emails].sort());
});

test("an event of a mail sent before the upgrade is not counted once more where it was counted then", async () => {
  const { keys, send, ref, emails } = await runningSend();
  const [reader] = emails as [string];
  await storedMarker(ref, reader, 'delivered');
  await storedMarker(ref, reader, 'open');

  expect(await recordSendEvent(ref, 'delivered', reader)).toBe(false);
  expect(await recordSendEvent(ref, 'open', reader)).toBe(false);
  expect(await recordSendEvent(ref, 'bounce', reader)).toBe(true);

  expect(await getSingleSend(keys.account_id, send.utr)).toMatchObject({ delivered: 0, unique_opens: 0, total_opens: 1, bounces: 1 });
});

test('a delivery event is looked up in the layout before only when its mail lacks the tag of markers kept by address, which every mail sent now carries', async () => {
  const { keys, send, ref, emails } = await runningSend();
  const [reader, other] = emails as [string, string];
  const content = { subject: 'Spring sale', preheader: '', designHtml: '<p>Hello</p>', fromEmail: 'news@example.com', replyTo: null, senderName: '', senderAddress: 'Main St 1', unsubscribeGroupId: null };
  const tags = recipientMail(ref, content, { email: reader, contactId: 1, fields: {} }).tags;
  expect(tags).toEqual([{ name: 'send_ref', value: encodeSendRef(ref) }, { name: 'markers', value: 'address' }]);

  // A marker stored before stops the count of an event of an untagged mail (sent before the upgrade);
  // a tagged mail's event never looks there (none of its events was counted there).
  await storedMarker(ref, reader, 'delivered');
  await storedMarker(ref, other, 'delivered');
  const delivered = (to: string, mailTags: Record<string, string[]>) => ({
    version: '0',
    id: `event-${Math.random()}`,
    'detail-type': 'Email Delivered',
    source: 'aws.ses',
    account: '000000000000',
    time: isoTimestamp(),
    region: 'us-east-1',
    resources: [],
    detail: { eventType: 'Delivery', mail: { messageId: `ses-${Math.random()}`, destination: [to], tags: { send_ref: [encodeSendRef(ref)], ...mailTags } }, delivery: { recipients: [to] } },
  });
  expect(await handleSesEvents(sqsEvent([delivered(reader, {})]))).toEqual({ batchItemFailures: [] });
  expect((await getSingleSend(keys.account_id, send.utr)).delivered).toBe(0);
  expect(await handleSesEvents(sqsEvent([delivered(other, { markers: ['address'] })]))).toEqual({ batchItemFailures: [] });
  expect((await getSingleSend(keys.account_id, send.utr)).delivered).toBe(1);
});

test('engagement conditions and the contact activity read a mail sent before the upgrade', async () => {
  const { keys, type, send, ref, emails } = await runningSend();
  const [reader] = emails as [string];
  const contact = await addContact(keys.account_id, contactFields(type.id, reader), {});
  const sentAt = isoTimestamp(new Date(Date.now() - 60_000));
  const deliveredAt = isoTimestamp(new Date(Date.now() - 59_000));
  await storedLedgerEntry(ref, reader, '0.0', sentAt);
  await storedMarker(ref, reader, 'delivered', deliveredAt);
  await storedMarker(ref, reader, 'click');
  // The `sent` entry the code before wrote after each delivery run.
  await recordActivity(keys.account_id, reader, { event: 'sent', ref, subject: 'Spring sale', at: sentAt });

  const opened: Condition = { field: 'email_opened', fieldType: 'engagement', operator: 'in single send', value: send.utr };
  const facts = await engagementFactsOf(keys.account_id, [reader], [opened]);
  expect(facts.get(reader)?.sends.get(send.utr)).toEqual({ mailed: true, opened: false, clicked: true });

  const line = { utr: send.utr, automation_utr: null, subject: 'Spring sale', url: null };
  expect(await callContacts(keys, 'GET', 'contacts/activity', { query: { contact_id: contact.id } })).toEqual({
    status: 200,
    body: { status: 'success', message: { activity: [{ event: 'delivered', ...line, at: deliveredAt }, { event: 'sent', ...line, at: sentAt }], next_cursor: null } },
  });
});
