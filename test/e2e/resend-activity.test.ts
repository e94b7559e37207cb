// Resend to non-openers and a contact's activity on the whole local stack, through HTTP only (the
// sender's confirmation aside): a send to four contacts, one opens, one clicks; a resend to the
// non-openers mails exactly the other two; the clicker's activity lists sent, delivered and click.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { callApi, eventually, mailsInSink, openTracked, pixelOf, trackedLinksOf, useTestStack, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form, multipart = false) => callApi<T>(stack(), path, form, { multipart });
const mails = () => mailsInSink(stack());

/** Poll until `done` says yes (or 60 s passed); its last answer. */
const until = <T>(read: () => Promise<T>, done: (value: T) => boolean) => eventually(read, done, { timeoutMs: 60_000, everyMs: 200 });

const sendOf = async (utr: string) => (await api<{ singleSend: { status: number; delivered: number; triggered: number }[] }>(`single-send/details?utr=${utr}`)).singleSend[0];

test('a resend to non-openers mails exactly the two who did not open; the clicker\'s activity lists sent, delivered and click', async () => {
  // Prepare: four contacts, a verified sender, a group, and a send with one link.
  await api('contacts-type/add', { name: 'Resend readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Resend readers') as { id: number }).id;
  const readers = ['opener', 'clicker', 'quiet', 'away'].map((name) => `${name}@resend.example`);
  for (const email of readers) await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Reader', last_name: 'Example', email, country: 233 });
  await api('unsubscribes-groups/save', { group_name: 'Resends', description: 'Our news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number; group_name: string }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme', from_email: 'resend@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'Resends' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders.find((each) => each.from_email === 'resend@acme.example') as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/spring">Spring sale</a></p></body></html>',
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups.find((group) => group.group_name === 'Resends') as { id: number }).id,
    single_send_name: 'Spring',
    subject: 'Spring sale',
    preheader: 'This week',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  await until(() => sendOf(utr), (send) => send?.status === 3 && send.delivered === 4);
  const firstMails = (await mails()).filter((mail) => mail.subject === 'Spring sale');
  const htmlTo = (address: string) => String(firstMails.find((mail) => mail.destination.to[0] === address)?.body.html);
  const pixel = pixelOf(htmlTo('opener@resend.example')) as string;
  const link = trackedLinksOf(htmlTo('clicker@resend.example'))[0] as string;

  // Act: one opens, one clicks (past the first seconds, where only scanners click); then the resend.
  await openTracked(pixel);
  await new Promise((done) => setTimeout(done, 2_100));
  const clicked = await openTracked(link);
  const resend = await api<{ utr: string }>('single/send/resend', { utr, audience: 'non_openers', subject: 'Spring sale: last days', schedule_type: 0 }, true);
  const resent = await until(() => sendOf(resend.utr), (send) => send?.status === 3);

  // Assess
  expect(clicked.status).toBe(302);
  expect(resent).toMatchObject({ status: 3, triggered: 2 });
  const resentTo = (await mails()).filter((mail) => mail.subject === 'Spring sale: last days').map((mail) => mail.destination.to[0]);
  expect(resentTo.sort()).toEqual(['away@resend.example', 'quiet@resend.example']);
  const { contacts } = await api<{ contacts: { id: number; email: string }[] }>('contacts/list');
  const clicker = contacts.find((contact) => contact.email === 'clicker@resend.example') as { id: number };
  const { activity } = await api<{ activity: { event: string; utr: string; subject: string }[] }>(`contacts/activity?contact_id=${clicker.id}`);
  expect(activity.map((line) => [line.event, line.utr, line.subject])).toEqual([
    ['click', utr, 'Spring sale'],
    ['delivered', utr, 'Spring sale'],
    ['sent', utr, 'Spring sale'],
  ]);
}, 120_000);
