// SES's mailbox simulator on the whole local stack (`npm start`), through the HTTP API only (the
// sender's confirmation aside): a send to 20 contacts of which 3 are `bounce+N@simulator.amazonses.com`
// puts those 3 on the suppression list, and the send's statistics count 3 bounces and 17 deliveries.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;

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

/** Ask `read` until `done` holds for its answer (or `timeoutMs` passed); returns the last answer. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resume) => setTimeout(resume, 100));
  }
}

interface SuppressionView {
  email: string;
  type: string;
  reason: string | null;
}

interface SendStats {
  audience: number;
  processed: number;
  delivered: number;
  bounces: number;
  complaints: number;
}

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

test('a send to 20 contacts, 3 of them bounce+N@simulator.amazonses.com: the 3 are suppressed, and the stats count 3 bounces and 17 deliveries', async () => {
  // Prepare: 17 readers and 3 simulator bounces in one contact type, an unsubscribe group and a verified sender.
  await api('contacts-type/add', { name: 'Simulated' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Simulated') as { id: number }).id;
  const bounces = [1, 2, 3].map((n) => `bounce+${n}@simulator.amazonses.com`);
  const readers = Array.from({ length: 17 }, (_, n) => `reader-${n}@readers.example`);
  const pending = [...readers, ...bounces];
  // A few at a time: 20 one after the other are most of this test's time on a busy machine.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let email = pending.shift(); email; email = pending.shift()) {
        await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Pat', last_name: 'Reader', email, country: 233, city: 'Springfield' });
      }
    }),
  );
  await api('unsubscribes-groups/save', { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme News', from_email: 'news@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>('senders');
  const sender = senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack.demoAccount.account_id, sender.id, sender.from_email);

  // Act: an immediate send to the contact type.
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 2,
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'Simulated news',
    subject: 'Hello ((first_name))',
    preheader: 'Bounces welcome',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });

  // Assess: the suppression list holds exactly the 3 bounces, as hard bounces.
  const listed = await eventually(
    async () => (await api<{ suppressions: SuppressionView[] }>('suppressions')).suppressions,
    (suppressions) => suppressions.length >= 3,
  );
  expect(listed.map(({ email, type, reason }) => ({ email, type, reason }))).toEqual(bounces.map((email) => ({ email, type: 'bounce', reason: 'General' })));
  // Assess: once all 20 are processed, 3 bounces and 17 deliveries (a bounce is never delivered).
  const { stats } = await eventually(
    () => api<{ stats: SendStats }>(`single-send/stats?utr=${utr}`),
    ({ stats: now }) => now.processed === 20 && now.bounces === 3 && now.delivered >= 17,
  );
  expect(stats).toMatchObject({ audience: 20, processed: 20, delivered: 17, bounces: 3, complaints: 0 });
}, 90_000);
