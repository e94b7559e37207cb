// Engagement segments on the whole local stack, through HTTP only (the sender's confirmation aside): a
// send to four contacts, one opens it and one clicks it in a desktop browser; an `email_opened` /
// `in single send` segment holds those two and the `not in single send` one the other two, each within
// a minute, and an OR segment the union of its conditions.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { callApi, eventually, openTracked, pixelOf, trackedLinksOf, useTestStack, waitForMail, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);

async function members(segmentId: number): Promise<string[]> {
  const { contactEmails } = await api<{ contactEmails: { email: string }[] }>(`segment/email/list?segment_id=${segmentId}`);
  return contactEmails.map((recipient) => recipient.email).sort();
}

/** The segment's members once they are `expected`, or as they are after a minute. */
function membersWithinAMinute(segmentId: number, expected: string[]): Promise<string[]> {
  return eventually(() => members(segmentId), (found) => JSON.stringify(found) === JSON.stringify(expected), { timeoutMs: 60_000, everyMs: 250 });
}

/** The form of segment/save: the three aligned arrays as indexed keys. */
function segmentForm(contactTypeId: number, name: string, rules: [string, string, string][], extra: Record<string, string> = {}) {
  const form: Record<string, string | number> = { contact_type_id: contactTypeId, segment_name: name, ...extra };
  rules.forEach(([field, operator, value], i) => Object.assign(form, { [`select_field[${i}]`]: field, [`select_operator[${i}]`]: operator, [`value[${i}]`]: value }));
  return form;
}

test('a send to four: the opener and the clicker move into the opened segment, the other two stay in the not-opened one, and OR takes the union', async () => {
  // Prepare: four contacts (two in Pune), a verified sender, a group, and a send with one link.
  await api('contacts-type/add', { name: 'Engaged readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Engaged readers') as { id: number }).id;
  const readers = ['ada@engaged.example', 'bob@engaged.example', 'cy@engaged.example', 'di@engaged.example'];
  for (const [i, email] of readers.entries()) {
    await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Reader', last_name: String(i), email, country: 233, city: i < 2 ? 'Austin' : 'Pune' });
  }
  await api('unsubscribes-groups/save', { group_name: 'Engaged news', description: 'Our news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number; group_name: string }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme', from_email: 'engaged@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'Engaged' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders.find((each) => each.from_email === 'engaged@acme.example') as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/spring">Spring sale</a></p></body></html>',
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups.find((group) => group.group_name === 'Engaged news') as { id: number }).id,
    single_send_name: 'Spring',
    subject: 'Spring sale',
    preheader: 'This week',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  const mails = await Promise.all(readers.map((reader) => waitForMail(stack(), reader)));
  const html = (index: number) => String(mails[index]?.body.html);
  const pixel = pixelOf(html(0)) as string;
  const link = trackedLinksOf(html(1))[0] as string;

  const before = (await api<{ segments: { id: number }[] }>('segment/list')).segments.length;
  await api('segment/save', segmentForm(contactTypeId, 'Opened spring', [['email_opened', 'in single send', utr]]));
  await api('segment/save', segmentForm(contactTypeId, 'Did not open spring', [['email_opened', 'not in single send', utr]]));
  await api('segment/save', segmentForm(contactTypeId, 'Pune or clicked', [['city', 'is', 'Pune'], ['email_clicked', 'in single send', utr]], { query_type: 'or' }));
  const [opened, notOpened, either] = [before + 1, before + 2, before + 3];

  // Act: ada opens the mail in a browser; bob clicks its link a while after it arrived.
  expect((await openTracked(pixel)).status).toBe(200);
  await new Promise((done) => setTimeout(done, 2_100));
  expect((await openTracked(link)).status).toBe(302);

  // Assess: within a minute.
  expect(await membersWithinAMinute(opened, ['ada@engaged.example', 'bob@engaged.example'])).toEqual(['ada@engaged.example', 'bob@engaged.example']);
  expect(await membersWithinAMinute(notOpened, ['cy@engaged.example', 'di@engaged.example'])).toEqual(['cy@engaged.example', 'di@engaged.example']);
  expect(await membersWithinAMinute(either, ['bob@engaged.example', 'cy@engaged.example', 'di@engaged.example'])).toEqual(['bob@engaged.example', 'cy@engaged.example', 'di@engaged.example']);
  const { segments } = await api<{ segments: { id: number; query_type: string | null; segment_emails_count: number }[] }>('segment/list');
  expect(segments.filter((segment) => segment.id > before).map((segment) => [segment.query_type, segment.segment_emails_count])).toEqual([
    [null, 2],
    [null, 2],
    ['or', 3],
  ]);
}, 150_000);
