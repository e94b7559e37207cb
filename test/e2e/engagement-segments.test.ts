// Engagement segments on the whole local stack, through HTTP only (the sender's confirmation aside): a
// send to four contacts, one opens it and one clicks it in a desktop browser; an `email_opened` /
// `in single send` segment holds those two and the `not in single send` one the other two, each within
// a minute, and an OR segment the union of its conditions.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { startTestStack, type TestStack } from '../support/local-stack';
import type { SinkMail } from '../support/sending';

let stack: TestStack;

const desktopBrowser = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

async function api<T>(path: string, form?: Record<string, string | number>): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: form ? 'POST' : 'GET',
    headers: stack.demoHeaders,
    ...(form ? { body: new URLSearchParams(Object.entries(form).map(([name, value]): [string, string] => [name, String(value)])) } : {}),
  });
  const body = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.message;
}

/** Poll the sink until a mail reached `address` (or 30 s passed). */
async function waitForMail(address: string): Promise<SinkMail | undefined> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const store = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: SinkMail[] };
    const mail = store.emails.find((each) => each.destination.to[0] === address);
    if (mail || Date.now() > deadline) return mail;
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function members(segmentId: number): Promise<string[]> {
  const { contactEmails } = await api<{ contactEmails: { email: string }[] }>(`segment/email/list?segment_id=${segmentId}`);
  return contactEmails.map((recipient) => recipient.email).sort();
}

/** The segment's members once they are `expected`, or as they are after a minute. */
async function membersWithinAMinute(segmentId: number, expected: string[]): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await members(segmentId);
    if (JSON.stringify(found) === JSON.stringify(expected) || Date.now() > deadline) return found;
    await new Promise((done) => setTimeout(done, 250));
  }
}

const request = (url: string, method = 'GET') => fetch(url, { method, redirect: 'manual', headers: { 'user-agent': desktopBrowser } });

/** The form of segment/save: the three aligned arrays as indexed keys. */
function segmentForm(contactTypeId: number, name: string, rules: [string, string, string][], extra: Record<string, string> = {}) {
  const form: Record<string, string | number> = { contact_type_id: contactTypeId, segment_name: name, ...extra };
  rules.forEach(([field, operator, value], i) => Object.assign(form, { [`select_field[${i}]`]: field, [`select_operator[${i}]`]: operator, [`value[${i}]`]: value }));
  return form;
}

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

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
  await confirmSenderAddress(stack.demoAccount.account_id, sender.id, sender.from_email);
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
  const mails = await Promise.all(readers.map(waitForMail));
  const html = (index: number) => String(mails[index]?.body.html);
  const pixel = /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(html(0))?.[1] as string;
  const link = ([...html(1).matchAll(/<a [^>]*href="([^"]*\/public\/click\?[^"]*)"/g)].map((match) => (match[1] as string).replace(/&amp;/g, '&')) as [string, string])[0];

  const before = (await api<{ segments: { id: number }[] }>('segment/list')).segments.length;
  await api('segment/save', segmentForm(contactTypeId, 'Opened spring', [['email_opened', 'in single send', utr]]));
  await api('segment/save', segmentForm(contactTypeId, 'Did not open spring', [['email_opened', 'not in single send', utr]]));
  await api('segment/save', segmentForm(contactTypeId, 'Pune or clicked', [['city', 'is', 'Pune'], ['email_clicked', 'in single send', utr]], { query_type: 'or' }));
  const [opened, notOpened, either] = [before + 1, before + 2, before + 3];

  // Act: ada opens the mail in a browser; bob clicks its link a while after it arrived.
  expect((await request(pixel)).status).toBe(200);
  await new Promise((done) => setTimeout(done, 2_100));
  expect((await request(link)).status).toBe(302);

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
