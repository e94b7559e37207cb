// Fair delivery on the whole local stack, with mail going out at a set SES rate: while account A's
// large single send runs at that rate, account B creates a one-recipient send through the HTTP API.
// B's mail must land before at most 5 s worth of A's mails counted from B's dispatch (when its
// delivery message was sent), and A's send still mails every recipient once. Counts only, no
// wall-clock limit: the rates A kept before and while B's send ran are measured and logged.
import { getStoreReadonly } from 'aws-ses-v2-local/dist/store';
import { createAccount, type NewAccount } from '../../shared/accounts/repository';
import { addContactType } from '../../shared/contact-types/repository';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { confirmSenderAddress } from '../../shared/senders/repository';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { functionConsumer } from '../../infra/local/queue-consumers';
import { startTestStack, type TestStack } from '../support/local-stack';

/** Mails a second the stack hands to SES (the local sink), for A and B together. */
const sesRate = 60;
/** A's audience: about 17 s of mail at the rate, long enough to outlast B's send by far. */
const largeAudience = 1_000;
/** A's mails out before B creates its send: A is well under way, its rate measured over several seconds. */
const largeMailsBeforeSmall = 300;
/** The most of A's mails that may land between B's dispatch and B's mail: 5 s at the rate. */
const mostLargeMailsAhead = 5 * sesRate;

const stackSettings = { SES_MAX_SEND_RATE: String(sesRate) };

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
  Object.assign(process.env, stackSettings);
  stack = await startTestStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  for (const name of Object.keys(stackSettings)) delete process.env[name];
}, 60_000);

/** When A's mail count was seen, sampled every few milliseconds while B's send runs. */
interface Sample {
  at: number;
  large: number;
}

/** A's mails a second between the first samples at or after `fromAt` and `toAt`. */
function rateBetween(samples: readonly Sample[], fromAt: number, toAt: number): number {
  const from = samples.find((sample) => sample.at >= fromAt) as Sample;
  const to = [...samples].reverse().find((sample) => sample.at <= toAt) as Sample;
  return ((to.large - from.large) * 1000) / (to.at - from.at);
}

test("a small account's first mail goes out within 5 s of the SES rate's worth of a large account's mail", async () => {
  // Prepare: A (the demo account) with a large audience; B, a second account, with one contact.
  const accountA = stack.demoAccount;
  const accountB = await createAccount('Small Shop');
  const largePattern = /^large-\d+@a\.example$/;
  const smallPattern = /^only@b\.example$/;
  const typeA = await typeWithContacts(accountA, (i) => `large-${String(i).padStart(5, '0')}@a.example`, largeAudience);
  const typeB = await typeWithContacts(accountB, () => 'only@b.example', 1);
  const setupA = await senderAndGroup(accountA, 'Large');
  const setupB = await senderAndGroup(accountB, 'Small');
  // The delivery messages the deliverer receives (when each was sent, and whose), on their way to it.
  const received: { group: string | undefined; sentAt: number }[] = [];
  const deliver = functionConsumer('deliveries');
  const unregister = registerLocalConsumer('deliveries', (event) => {
    received.push(...event.Records.map((record) => ({ group: record.attributes.MessageGroupId, sentAt: Number(record.attributes.SentTimestamp) })));
    return deliver(event);
  });

  try {
    // Act: A's send starts; once it is well under way, B's send is created.
    const { utr: utrA } = await api<{ utr: string }>(accountA, 'single/send/create', sendForm(setupA, typeA, 'Large send'));
    const samples: Sample[] = [];
    const sample = () => {
      samples.push({ at: Date.now(), large: mailsMatching(largePattern) });
      return samples.at(-1) as Sample;
    };
    await until(sample, (seen) => seen.large >= largeMailsBeforeSmall, 120_000, "A's first mails");
    expect(await sendStatus(accountA, utrA)).toBe(2);
    const created = sample();
    await api<{ utr: string }>(accountB, 'single/send/create', sendForm(setupB, typeB, 'Small send'));
    // A's count is read in the same synchronous step as B's arrival, so no A mail can land in between.
    const arrival = await until(
      () => ({ ...sample(), small: mailsMatching(smallPattern) }),
      (seen) => seen.small > 0,
      120_000,
      "B's mail",
    );
    await until(() => sendStatus(accountA, utrA), (status) => status === 3, 300_000, "A's send to complete");

    // Assess: B's one mail came after at most 5 s worth of A's mails, counted from B's dispatch: from
    // the last count of A's taken before B's delivery message was sent, so none is missed.
    const dispatchedAt = (received.find((record) => record.group === String(accountB.account_id)) as { sentAt: number }).sentAt;
    const atDispatch = [...samples].reverse().find((seen) => seen.at <= dispatchedAt) as Sample;
    const largeAhead = arrival.large - atDispatch.large;
    const firstSteady = samples.find((seen) => seen.large >= 60) as Sample;
    const rateBefore = rateBetween(samples, firstSteady.at, created.at);
    const rateWhile = rateBetween(samples, created.at, arrival.at);
    const percent = (rate: number) => `${((rate / rateBefore) * 100).toFixed(0)}%`;
    console.log(
      [
        `A's mails between B's dispatch and B's mail: ${largeAhead} (at most ${mostLargeMailsAhead}); from B's creation: ${arrival.large - created.large}`,
        `B's mail ${((arrival.at - dispatchedAt) / 1000).toFixed(2)} s after its dispatch, ${((arrival.at - created.at) / 1000).toFixed(2)} s after its creation`,
        `A's rate before B: ${rateBefore.toFixed(1)}/s; from B's creation to its mail: ${rateWhile.toFixed(1)}/s (${percent(rateWhile)})`,
        `A's delivery messages received: ${received.filter((record) => record.group === String(accountA.account_id)).length} for ${largeAudience / 50} dispatched`,
      ].join('\n'),
    );
    expect(arrival.small).toBe(1);
    expect(largeAhead).toBeLessThanOrEqual(mostLargeMailsAhead);
    // And A's send completes, every recipient once.
    expect(mailsMatching(largePattern)).toBe(largeAudience);
    const largeAddresses = getStoreReadonly().emails.map((mail) => mail.destination.to[0] ?? '').filter((to) => largePattern.test(to));
    expect(new Set(largeAddresses).size).toBe(largeAudience);
  } finally {
    unregister();
  }
}, 600_000);
