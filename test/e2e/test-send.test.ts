// A test send on the whole local stack, through the HTTP API only (the sender's confirmation aside):
// the test mail lands in the sink with `[Test] ` before its subject, and the preview shows the mail.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { startTestStack, type TestStack } from '../support/local-stack';
import type { SinkMail } from '../support/sending';

let stack: TestStack;

async function api<T>(path: string, form?: Record<string, string | number>): Promise<T> {
  let body: FormData | undefined;
  if (form) {
    body = new FormData();
    for (const [name, value] of Object.entries(form)) body.append(name, String(value));
  }
  // A FormData body goes as multipart/form-data, as the spec's clients send it.
  const response = await fetch(`${stack.apiUrl}${path}`, { method: form ? 'POST' : 'GET', headers: stack.demoHeaders, ...(body ? { body } : {}) });
  const reply = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(reply)}`);
  return reply.message;
}

async function waitForMail(address: string, timeoutMs = 15_000): Promise<SinkMail | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const store = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: SinkMail[] };
    const mail = store.emails.find((candidate) => candidate.destination.to.includes(address));
    if (mail || Date.now() > deadline) return mail;
    await new Promise((done) => setTimeout(done, 100));
  }
}

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it('mails a test of a single send to the sink with [Test] before the subject, and previews it', async () => {
  await api('contacts-type/add', { name: 'Readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number }[] }>('contacts-type');
  await api('unsubscribes-groups/save', { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme News', from_email: 'news@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>('senders');
  const sender = senders[0] as { id: number; from_email: string };
  // The confirmation link's effect, without reading the verification mail.
  await confirmSenderAddress(stack.demoAccount.account_id, sender.id, sender.from_email);
  // Scheduled far ahead: only the test mails anyone.
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 2,
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'Spring news',
    subject: 'Hello ((first_name))',
    preheader: 'What is new this spring',
    'recipient_id[0]': `contacts_${(contactTypes[0] as { id: number }).id}`,
    schedule_type: 1,
    schedule_date: '2099-01-01',
    schedule_time: '10:00:00',
  });

  expect(await api('single/send/test', { utr, 'emails[0]': 'qa@acme.example' })).toBe('Test Mail Sent');
  const mail = await waitForMail('qa@acme.example');
  expect(mail?.subject).toBe('[Test] Hello Jane');
  expect(mail?.from).toContain('news@acme.example');

  const { preview } = await api<{ preview: { subject: string; html: string; text: string } }>(`single-send/preview?utr=${utr}`);
  expect(preview.subject).toBe('Hello Jane');
  expect(preview.html).toContain('public/open?token=');
});
