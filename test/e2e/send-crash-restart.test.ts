// Crash safety seen from the outside: `npm start` as a real process sends a single send to 2,000
// contacts, the whole process group (the stack and its DynamoDB Local) is killed with SIGKILL once
// some of the mail has reached the sink, and `npm start` runs again on the same DATA_DIR. The send
// must end at status 3 with no address mailed twice and every recipient either mailed (triggered) or
// counted as uncertain in the send's details, never more of them than there were mails in flight; and
// every mail the sink took counted delivered, its SES delivery event kept through the kill (but those
// the feedback function was counting at the kill: statistics lose those counts, never double one).
// Everything goes through the HTTP API and the sink's `/store`; the sender is confirmed through the
// page its verification mail links to (its button POSTs the token).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '../../infra/local/ports';
import { localQueueDefaults } from '../../shared/queue/local-queue-settings';
import { queueBatchSizes } from '../../shared/queue/queues';
import { newDataDir, sleep, waitFor } from '../support/local-stack';
import type { SinkMail } from '../support/sending';

const repoRoot = join(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');

/** Enough that the kill, once 100 mails are out, lands mid-send with hundreds still to go, in a dozen delivery messages. */
const recipients = 600;
/** Recipients one delivery message mails at once (set for the stack below). */
const deliveryConcurrency = 16;
/** Mails that can be between their ledger claim and SES's answer at one instant: batches in flight x recipients each. */
const mailsInFlight = localQueueDefaults.concurrency * deliveryConcurrency;
/** Delivery events that can be between their markers' claim and their send's count at one instant: batches in flight x events each. */
const eventsBeingCounted = localQueueDefaults.concurrency * queueBatchSizes['ses-events'];

interface RunningStack {
  process: ChildProcess;
  exited: Promise<unknown>;
}

const dataDir = newDataDir();
let ports: { api: number; dynamodb: number; ses: number };
let running: RunningStack | undefined;
let headers: Record<string, string>;

/** `npm start` in a process group of its own (one signal then reaches DynamoDB Local too); resolves at its banner. */
async function startStack(): Promise<RunningStack> {
  const child = spawn(tsx, ['infra/local/start.ts'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(ports.api),
      DYNAMODB_PORT: String(ports.dynamodb),
      SES_PORT: String(ports.ses),
      DATA_DIR: dataDir,
      DELIVERY_CONCURRENCY: String(deliveryConcurrency),
      QUIET: '1',
      LOG_LEVEL: 'silent',
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  await waitFor(() => output.includes('Ctrl+C stops everything.') || child.exitCode !== null, 90_000, 'the ready banner');
  if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
  return { process: child, exited };
}

/** SIGKILL to every process of the stack's group at once: no handler runs, nothing is flushed or stopped. */
async function killStack(stack: RunningStack): Promise<void> {
  process.kill(-(stack.process.pid as number), 'SIGKILL');
  await stack.exited;
}

/** DynamoDB Local processes using this DATA_DIR (its path is on their command line). */
function javaProcessesFor(dir: string): string[] {
  const found = spawnSync('pgrep', ['-f', `DynamoDBLocal.jar -dbPath ${dir}`], { encoding: 'utf8' });
  return found.stdout.split('\n').filter((line) => line.trim() !== '');
}

/** The whole answer of an API call (a POST when given a form); throws unless it is a 200. */
async function call<T>(path: string, form?: Record<string, string | number> | FormData): Promise<T> {
  const body = form instanceof FormData ? form : form ? new URLSearchParams(Object.entries(form).map(([name, value]): [string, string] => [name, String(value)])) : undefined;
  const response = await fetch(`http://localhost:${ports.api}/api/${path}`, { method: body ? 'POST' : 'GET', headers, ...(body ? { body } : {}) });
  const answer = (await response.json()) as T;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** The `message` of an API call's answer. */
async function api<T>(path: string, form?: Record<string, string | number> | FormData): Promise<T> {
  return (await call<{ message: T }>(path, form)).message;
}

/** Call `read` every 100 ms until `done` holds for its answer; the last answer after `timeoutMs`. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

/**
 * Poll while `progress` of what is read keeps growing: gives up only after `stalledMs` without any,
 * so a busy machine that counts slowly is waited for, and a count that stopped is not.
 */
async function pollWhileGrowing<T>(read: () => Promise<T>, done: (value: T) => boolean, progress: (value: T) => number, stalledMs: number): Promise<T> {
  let best = -Infinity;
  let grewAt = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (progress(value) > best) {
      best = progress(value);
      grewAt = Date.now();
    } else if (Date.now() - grewAt > stalledMs) {
      return value;
    }
    await sleep(250);
  }
}

async function sinkMails(): Promise<SinkMail[]> {
  const store = (await (await fetch(`http://localhost:${ports.ses}/store`)).json()) as { emails: SinkMail[] };
  return store.emails;
}

const audience = Array.from({ length: recipients }, (_, n) => `reader-${String(n).padStart(4, '0')}@crash.example`);
const inAudience = new Set(audience);

/** The send's mail in the sink (the sender's verification mail aside). */
async function sendMails(): Promise<SinkMail[]> {
  return (await sinkMails()).filter((mail) => inAudience.has(mail.destination.to[0] as string));
}

interface SendDetails {
  status: number;
  triggered: number;
  delivered: number;
  /** Recipients whose mail may or may not have gone: the process died between their ledger claim and SES's answer. */
  uncertain?: number;
}

async function sendDetails(utr: string): Promise<SendDetails> {
  const { singleSend } = await api<{ singleSend: SendDetails[] }>(`single-send/details?utr=${utr}`);
  return singleSend[0] as SendDetails;
}

/** The 2,000 contacts in a new type (a CSV import, run as a job on the queue), a confirmed sender, a group; then the send. */
async function createSend(): Promise<string> {
  await api('contacts-type/add', { name: 'Crash readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Crash readers') as { id: number }).id;
  const csv = ['email,first_name,last_name,country,city', ...audience.map((email, n) => `${email},Reader ${n},Crash,US,Springfield`)].join('\r\n');
  const upload = new FormData();
  upload.set('contact_type_id', String(contactTypeId));
  upload.set('file', new Blob([csv], { type: 'text/csv' }), 'readers.csv');
  const { import_id: importId } = await call<{ import_id: number }>('contacts/upload-csv', upload);
  const { import: job } = await poll(
    () => api<{ import: { status: string; imported: number } }>(`contacts/import-status?id=${importId}`),
    (answer) => answer.import.status === 'completed' || answer.import.status === 'failed',
    90_000,
  );
  if (job.status !== 'completed' || job.imported !== recipients) throw new Error(`the CSV import ended ${JSON.stringify(job)}`);

  await api('unsubscribes-groups/save', { group_name: 'Crash news', description: 'News', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  const fromEmail = 'news@crash-sender.example';
  await api('sender/save', { from_name: 'Crash News', from_email: fromEmail, reply_to_email: 'support@crash-sender.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const { senders } = await api<{ senders: { id: number }[] }>('senders');
  // Confirmed the way its owner would: through the link in the verification mail.
  const [verification] = await poll(async () => (await sinkMails()).filter((mail) => mail.destination.to.includes(fromEmail)), (mails) => mails.length > 0, 15_000);
  const link = /href="([^"]+)"/.exec(verification?.body.html ?? '')?.[1]?.replace(/&amp;/g, '&');
  // The link opens a page whose button POSTs the token back; that is what confirms.
  const token = link ? new URL(link).searchParams.get('token') : null;
  const confirmed = link && token ? await fetch(new URL(link).origin + new URL(link).pathname, { method: 'POST', body: new URLSearchParams({ token }) }) : undefined;
  if (!confirmed || confirmed.status !== 200) throw new Error(`the sender could not be confirmed through ${link}`);

  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 2,
    sender_id: (senders[0] as { id: number }).id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'Crash news',
    subject: 'Hello ((first_name))',
    preheader: 'Sent through a crash',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  return utr;
}

interface Outcome {
  mailedBeforeKill: number;
  javaLeftAfterKill: string[];
  mailedInStoreAfterRestart: number;
  details: SendDetails;
  mails: SinkMail[];
  /** Delivered once all but the events being counted at the kill were (or once it stopped growing). */
  delivered: number;
}

let outcome: Outcome;

beforeAll(async () => {
  ports = { api: await findFreePort(), dynamodb: await findFreePort(), ses: await findFreePort() };
  running = await startStack();
  const demo = JSON.parse(readFileSync(join(dataDir, 'demo-account.json'), 'utf8')) as { public_key: string; secret_key: string };
  headers = { PublicKey: demo.public_key, SecretKey: demo.secret_key };
  const utr = await createSend();

  // Some, not all, of the mail has gone out (a few seconds into the send): kill everything.
  const before = await poll(sendMails, (mails) => mails.length >= 100, 90_000);
  await killStack(running);
  const javaLeftAfterKill = javaProcessesFor(dataDir);

  running = await startStack();
  const mailedInStoreAfterRestart = (await sendMails()).length;
  const details = await poll(() => sendDetails(utr), (send) => send.status === 3, 150_000);
  // Nothing more arrives once the send is complete.
  await sleep(500);
  const mails = await sendMails();
  // SES's delivery events may still be arriving once the send is complete.
  const { delivered } = await pollWhileGrowing(() => sendDetails(utr), (send) => send.delivered >= mails.length, (send) => send.delivered, 30_000);
  outcome = { mailedBeforeKill: before.length, javaLeftAfterKill, mailedInStoreAfterRestart, details, mails, delivered };
}, 420_000);

afterAll(async () => {
  if (running && running.process.exitCode === null && running.process.signalCode === null) {
    process.kill(-(running.process.pid as number), 'SIGINT');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

test('the kill came mid-send and took DynamoDB Local with it; the sink kept the mail from before it', () => {
  expect(outcome.mailedBeforeKill).toBeGreaterThanOrEqual(100);
  expect(outcome.mailedBeforeKill).toBeLessThan(recipients);
  expect(outcome.javaLeftAfterKill).toEqual([]);
  expect(outcome.mailedInStoreAfterRestart).toBeGreaterThanOrEqual(outcome.mailedBeforeKill);
});

test('the send completes after the restart (status 3)', () => {
  expect(outcome.details.status).toBe(3);
});

test('no address is mailed twice', () => {
  const perAddress = new Map<string, number>();
  for (const mail of outcome.mails) perAddress.set(mail.destination.to[0] as string, (perAddress.get(mail.destination.to[0] as string) ?? 0) + 1);
  expect([...perAddress.entries()].filter(([, count]) => count > 1)).toEqual([]);
});

test('every recipient is mailed or counted as uncertain in the details, never more than were in flight', () => {
  const { triggered, uncertain } = outcome.details;
  expect(uncertain).toEqual(expect.any(Number));
  const unknown = uncertain ?? 0;
  // Each recipient once: SES answered (triggered), or the answer was lost with the process (uncertain).
  expect(triggered + unknown).toBe(recipients);
  expect(unknown).toBeLessThanOrEqual(mailsInFlight);
  // An uncertain mail may have reached the sink before the kill, or not; an answered one did.
  expect(outcome.mails.length).toBeGreaterThanOrEqual(triggered);
  expect(outcome.mails.length).toBeGreaterThanOrEqual(recipients - unknown);
});

test('every mail the sink took is counted delivered, but those whose events were being counted at the kill, never twice', () => {
  // The events reach the feedback function in batches: those of the batches it was counting when
  // killed may be lost (their once-per-recipient markers written, their send's count not:
  // shared/statistics/delivery-counts.ts); every other event, kept through the kill, counts once.
  expect(outcome.delivered).toBeLessThanOrEqual(outcome.mails.length);
  expect(outcome.delivered).toBeGreaterThanOrEqual(outcome.mails.length - eventsBeingCounted);
});
