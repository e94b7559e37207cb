// Fair sending on the whole local stack: while account A's large single send is still delivering,
// account B's one-recipient send is created through the HTTP API, and B's mail lands in the sink
// before A's send has finished. Only the order of events is asserted (no speed): B's send is created
// while A's is running (status 2) with mail arriving, and when B's mail lands, A still has mail that
// has not arrived.
import { getStoreReadonly } from 'aws-ses-v2-local/dist/store';
import { createAccount, type NewAccount } from '../../shared/accounts/repository';
import { addContactType } from '../../shared/contact-types/repository';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-writes';
import { confirmSenderAddress } from '../../shared/senders/repository';
import { startTestStack, type TestStack } from '../support/local-stack';

/** A's audience: large enough that its delivery takes many seconds even on a fast machine. */
const largeAudience = 1_500;

let stack: TestStack;

function headersOf(account: NewAccount): Record<string, string> {
  return { PublicKey: account.public_key, SecretKey: account.secret_key };
}

async function api<T>(account: NewAccount, path: string, form?: Record<string, string | number>): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: form ? 'POST' : 'GET',
    headers: headersOf(account),
    ...(form ? { body: new URLSearchParams(Object.entries(form).map(([name, value]): [string, string] => [name, String(value)])) } : {}),
  });
  const body = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.message;
}

async function sendStatus(account: NewAccount, utr: string): Promise<number | undefined> {
  const { singleSend } = await api<{ singleSend: { status: number }[] }>(account, `single-send/details?utr=${utr}`);
  return singleSend[0]?.status;
}

/** Mails in the sink (read in process: no JSON of thousands of mails) whose first recipient matches. */
function mailsMatching(pattern: RegExp): number {
  return getStoreReadonly().emails.filter((mail) => pattern.test(mail.destination.to[0] ?? '')).length;
}

/** A verified sender and an unsubscribe group of the account, through the API (the confirmation link aside). */
async function senderAndGroup(account: NewAccount, name: string): Promise<{ senderId: number; groupId: number }> {
  await api(account, 'sender/save', {
    from_name: name,
    from_email: `news@${name.toLowerCase()}.example`,
    reply_to_email: `support@${name.toLowerCase()}.example`,
    country_id: 233,
    company_address: '1 Main Street',
    nickname: name,
  });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>(account, 'senders');
  const sender = senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(account.account_id, sender.id, sender.from_email);
  await api(account, 'unsubscribes-groups/save', { group_name: `${name} news`, description: 'News', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>(account, 'unsubscribes-groups');
  return { senderId: sender.id, groupId: (unsubscribesGroups[0] as { id: number }).id };
}

/** `count` contacts of a new type, written through the CSV import's write path (setup, not under test). */
async function typeWithContacts(account: NewAccount, emailOf: (index: number) => string, count: number): Promise<number> {
  const type = await addContactType(account.account_id, 'Readers');
  for (let start = 0; start < count; start += 500) {
    const rows: ImportRow[] = Array.from({ length: Math.min(500, count - start) }, (_, i) => ({
      line: i + 2,
      fields: {
        contact_type_id: type.id,
        first_name: 'Reader',
        last_name: String(start + i),
        email: emailOf(start + i),
        alt_email: null,
        country: '233',
        state: '',
        city: 'Springfield',
        address_line1: '',
        address_line2: '',
        state_province_region: '',
        postal_code: '',
      },
      customValues: {},
    }));
    await importContactRows(account.account_id, type.id, rows, new Set(['first_name', 'last_name', 'email', 'country', 'city']));
  }
  return type.id;
}

function sendForm(setup: { senderId: number; groupId: number }, contactTypeId: number, name: string): Record<string, string | number> {
  return {
    template_id: 2,
    sender_id: setup.senderId,
    unsubscribe_group_id: setup.groupId,
    single_send_name: name,
    subject: `${name} for ((first_name))`,
    preheader: 'News',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  };
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resume) => setTimeout(resume, 50));
  }
}

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

test("a small account's send is delivered while a large account's send is still delivering", async () => {
  // Prepare: A (the demo account) with a large audience; B, a second account, with one contact.
  const accountA = stack.demoAccount;
  const accountB = await createAccount('Small Shop');
  const largePattern = /^large-\d+@a\.example$/;
  const typeA = await typeWithContacts(accountA, (i) => `large-${String(i).padStart(5, '0')}@a.example`, largeAudience);
  const typeB = await typeWithContacts(accountB, () => 'only@b.example', 1);
  const setupA = await senderAndGroup(accountA, 'Large');
  const setupB = await senderAndGroup(accountB, 'Small');

  // Act: A's send starts; once its mail is arriving (and it is running), B's send is created.
  const { utr: utrA } = await api<{ utr: string }>(accountA, 'single/send/create', sendForm(setupA, typeA, 'Large send'));
  await until(() => mailsMatching(largePattern), (count) => count > 0, 60_000, "A's first mails");
  expect(await sendStatus(accountA, utrA)).toBe(2);
  await api<{ utr: string }>(accountB, 'single/send/create', sendForm(setupB, typeB, 'Small send'));
  // Checked in the same synchronous step as B's arrival, so no A mail can land in between.
  const atArrival = await until(
    () => ({ b: mailsMatching(/^only@b\.example$/), a: mailsMatching(largePattern) }),
    (seen) => seen.b > 0,
    120_000,
    "B's mail",
  );

  // Assess: B's mail came while A still had mail on its way.
  expect(atArrival.b).toBe(1);
  expect(atArrival.a).toBeLessThan(largeAudience);
  // And A's send still completes, every recipient once.
  await until(() => sendStatus(accountA, utrA), (status) => status === 3, 300_000, "A's send to complete");
  expect(mailsMatching(largePattern)).toBe(largeAudience);
}, 600_000);
