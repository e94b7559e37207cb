// Double opt-in on the whole local stack, over HTTP and in Debian's headless Chromium: a contact added
// to a double opt-in type gets its confirmation mail only once the opt-in sender is verified, a
// single send meanwhile mails the confirmed contact and skips it, opening the mail's link confirms
// nothing, and after the button is pressed the next send mails it.
import { type Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { startTestStack, type TestStack } from '../support/local-stack';
import type { SinkMail } from '../support/sending';

let stack: TestStack;
let browser: Browser;

async function api<T>(path: string, form?: Record<string, string | number>): Promise<T> {
  const entries = Object.entries(form ?? {}).map(([name, value]): [string, string] => [name, String(value)]);
  const response = await fetch(`${stack.apiUrl}${path}`, { method: form ? 'POST' : 'GET', headers: stack.demoHeaders, ...(form ? { body: new URLSearchParams(entries) } : {}) });
  const answer = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer.message;
}

async function mailsTo(address: string): Promise<SinkMail[]> {
  const { emails } = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: SinkMail[] };
  return emails.filter((mail) => mail.destination.to.includes(address));
}

/** Poll until `done` says yes (or 60 s passed); its last answer. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resume) => setTimeout(resume, 200));
  }
}

const hrefIn = (mail: SinkMail | undefined, pattern: RegExp) => (pattern.exec(String(mail?.body.html))?.[1] ?? '').replace(/&amp;/g, '&');

async function contactByEmail(email: string): Promise<{ id: number; subscription_status: string; confirmed_at: string | null }> {
  const { contacts } = await api<{ contacts: { id: number; email: string; subscription_status: string; confirmed_at: string | null }[] }>('contacts/list');
  return contacts.find((contact) => contact.email === email) as { id: number; subscription_status: string; confirmed_at: string | null };
}

async function sendTo(typeIds: number[], senderId: number, groupId: number, subject: string): Promise<string> {
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p></body></html>',
    sender_id: senderId,
    unsubscribe_group_id: groupId,
    preheader: 'News',
    single_send_name: subject,
    subject,
    ...Object.fromEntries(typeIds.map((id, index) => [`recipient_id[${index}]`, `contacts_${id}`])),
    schedule_type: 0,
  });
  await until(
    async () => (await api<{ singleSend: { status: number }[] }>(`single-send/details?utr=${utr}`)).singleSend[0],
    (send) => send?.status === 3,
  );
  return utr;
}

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

test('a pending contact is never mailed until its button is pressed, and then is', async () => {
  // Prepare: an unverified sender, a double opt-in type naming it, and a plain type.
  const from = 'optin@acme.example';
  await api('sender/save', { from_name: 'Acme', from_email: from, reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'Opt-in' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders.find((each) => each.from_email === from) as { id: number };
  await api('contacts-type/add', { name: 'Consenting readers', double_opt_in: 1, opt_in_sender_id: sender.id });
  await api('contacts-type/add', { name: 'Customers' });
  await api('unsubscribes-groups/save', { group_name: 'Opt-in news', description: 'Our news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number; group_name: string }[] }>('unsubscribes-groups');
  const groupId = (unsubscribesGroups.find((group) => group.group_name === 'Opt-in news') as { id: number }).id;
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string; double_opt_in: number }[] }>('contacts-type');
  const consenting = contactTypes.find((type) => type.name === 'Consenting readers') as { id: number; double_opt_in: number };
  const customers = contactTypes.find((type) => type.name === 'Customers') as { id: number };
  const pending = 'pending@optin.example';
  const customer = 'customer@optin.example';
  await api('contacts/add', { contact_type_id: consenting.id, first_name: 'Pat', email: pending, country: 233 });
  await api('contacts/add', { contact_type_id: customers.id, first_name: 'Cus', email: customer, country: 233 });
  expect(consenting.double_opt_in).toBe(1);
  expect(await contactByEmail(pending)).toMatchObject({ subscription_status: 'pending', confirmed_at: null });

  // Act: the sender is verified through the link of its verification mail.
  const [verification] = await mailsTo(from);
  const senderToken = new URL(hrefIn(verification, /href="([^"]+)"/)).searchParams.get('token') as string;
  const verified = await fetch(`${stack.apiUrl}public/senders/confirm`, { method: 'POST', body: new URLSearchParams({ token: senderToken }) });
  expect(verified.status).toBe(200);
  // Assess: the confirmation mail, held until then, goes out once.
  const confirmations = await until(() => mailsTo(pending), (found) => found.length > 0);
  expect(confirmations.map((mail) => [mail.from, mail.subject])).toEqual([[`Acme <${from}>`, 'Please confirm your subscription to Acme']]);

  // Act: a send to both types before the button is pressed.
  await sendTo([consenting.id, customers.id], sender.id, groupId, 'Before consent');
  // Assess: the customer is mailed, the pending contact skipped.
  expect((await mailsTo(customer)).map((mail) => mail.subject)).toEqual(['Before consent']);
  expect((await mailsTo(pending)).map((mail) => mail.subject)).toEqual(['Please confirm your subscription to Acme']);

  // Act: the link is opened in a browser (as a mail scanner would too), then the button pressed.
  const link = hrefIn(confirmations[0], /href="([^"]*public\/opt-in\/confirm[^"]*)"/);
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const opened = await page.goto(link);
  expect(opened?.status()).toBe(200);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your subscription');
  expect(await contactByEmail(pending)).toMatchObject({ subscription_status: 'pending', confirmed_at: null });
  await page.getByRole('button', { name: 'Confirm my subscription' }).click();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Subscription confirmed');
  await context.close();

  // Assess: confirmed, with the press in its activity; the next send mails it.
  const confirmed = await contactByEmail(pending);
  expect(confirmed).toMatchObject({ subscription_status: 'confirmed', confirmed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
  const { activity } = await api<{ activity: { event: string }[] }>(`contacts/activity?contact_id=${confirmed.id}`);
  expect(activity.map((line) => line.event)).toEqual(['opt_in_confirmed']);
  await sendTo([consenting.id, customers.id], sender.id, groupId, 'After consent');
  expect((await mailsTo(pending)).map((mail) => mail.subject).sort()).toEqual(['After consent', 'Please confirm your subscription to Acme']);
  expect((await mailsTo(customer)).map((mail) => mail.subject).sort()).toEqual(['After consent', 'Before consent']);
}, 180_000);
