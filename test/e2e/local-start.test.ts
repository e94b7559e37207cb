// `npm start`'s stack, in process on free ports: the files it writes, the demo keys working through
// the gateway, a restart on the same DATA_DIR keeping every record, and `account:create` against it.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sendMail } from '../../shared/mail/mailer';
import { startTestStack, type TestStack } from '../support/local-stack';

const run = promisify(execFile);
const repoRoot = join(__dirname, '../..');
let stack: TestStack;

const readJson = (file: string) => JSON.parse(readFileSync(join(stack.dataDir, file), 'utf8')) as Record<string, unknown>;

async function api(path: string, init: RequestInit = {}, headers: Record<string, string> = stack.demoHeaders) {
  const response = await fetch(`${stack.apiUrl}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack.stop();
});

test('demo-account.json and local-endpoints.json are written with the documented shape', () => {
  const account = readJson('demo-account.json');
  const endpoints = readJson('local-endpoints.json');
  const { api, dynamodb, ses } = stack.stack.ports;

  expect(account).toEqual({ account_id: 1, public_key: expect.stringMatching(/^pk_[0-9a-f]{32}$/), secret_key: expect.stringMatching(/^sk_[\w-]{43}$/) });
  expect(account).toEqual(stack.demoAccount);
  expect(endpoints).toEqual({
    api: `http://localhost:${api}/api/`,
    public_links: `http://localhost:${api}/links/api/`,
    mail_viewer: `http://localhost:${ses}/`,
    mail_store: `http://localhost:${ses}/store`,
    dynamodb: `http://localhost:${dynamodb}`,
  });
});

test('the demo keys authenticate through the gateway', async () => {
  const listed = await api('contacts-type');
  const anonymous = await api('contacts-type', {}, {});

  expect(listed.status).toBe(200);
  expect(anonymous.status).toBe(401);
});

test('the fallback function answers unknown paths (404) and wrong methods (405)', async () => {
  expect((await api('no-such-resource')).status).toBe(404);
  expect((await api('contacts-type', { method: 'PUT' })).status).toBe(405);
});

test('the mail viewer and the JSON store answer', async () => {
  const viewer = await fetch(stack.stack.urls.mail_viewer);
  const store = await fetch(stack.mailStoreUrl);

  expect(viewer.status).toBe(200);
  expect(await store.json()).toMatchObject({ emails: expect.any(Array) });
});

test('mail sent in the stack lands in its sink, with headers', async () => {
  const { messageId } = await sendMail({
    from: 'Demo <demo@example.com>',
    to: ['reader@example.com'],
    subject: 'Local stack check',
    html: '<p>ok</p>',
    headers: [{ name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' }],
  });

  const store = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: Array<{ messageId: string; headers?: unknown[] }> };
  expect(store.emails.find((email) => email.messageId === messageId)).toMatchObject({
    headers: [{ name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' }],
  });
});

test('account:create prints exactly one JSON object whose keys authenticate', async () => {
  // Act
  const { stdout } = await run('npm', ['run', '--silent', 'account:create', '--', '--name', 'Second'], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: stack.dataDir },
  });

  // Assess
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trim().split('\n')).toHaveLength(1);
  const created = JSON.parse(stdout) as { account_id: number; public_key: string; secret_key: string };
  expect(Object.keys(created)).toEqual(['account_id', 'public_key', 'secret_key']);
  expect(created.account_id).toBeGreaterThan(1);
  const listed = await api('contacts-type', {}, { PublicKey: created.public_key, SecretKey: created.secret_key });
  expect(listed.status).toBe(200);
});

test('a second stack on the same DATA_DIR is refused while the first runs', async () => {
  await expect(startTestStack({ dataDir: stack.dataDir })).rejects.toThrow(/^a local stack is already running on /);
});

test('a restart on the same DATA_DIR keeps the demo account and the records', async () => {
  // Prepare
  const added = await api('contacts-type/add', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Kept across restarts' }) });
  expect(added.status).toBe(200);
  const before = await api('contacts-type');
  const { dataDir, demoAccount } = stack;

  // Act
  await stack.stop({ keepData: true });
  const endpointsGone = !existsSync(join(dataDir, 'local-endpoints.json'));
  stack = await startTestStack({ dataDir });

  // Assess
  expect(endpointsGone).toBe(true);
  expect(stack.demoAccount).toEqual(demoAccount);
  expect(readJson('demo-account.json')).toEqual(demoAccount);
  const after = await api('contacts-type');
  expect(after.status).toBe(200);
  expect(after.body).toEqual(before.body);
  expect(JSON.stringify(after.body)).toContain('Kept across restarts');
});
