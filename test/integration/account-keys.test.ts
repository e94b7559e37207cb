// Rotating and revoking an account's keys on DynamoDB Local: `account:keys` run as the operator runs
// it (npm, a child process, one JSON line on stdout), on the local stack's DATA_DIR and with --table;
// the old key keeps working after a rotate and is refused once revoked and out of the credential cache.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../functions/contact-types/handler';
import { accountKey } from '../../shared/accounts/keys';
import { addKeyPair, LastKeyPairError, revokeKeyPair, type NewAccount } from '../../shared/accounts/repository';
import { resetConfig } from '../../shared/config';
import { db, tableName } from '../../shared/table/client';
import { RecordNotFound } from '../../shared/table/errors';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart, type Keys } from '../support/events';
import { sleep } from '../support/local-stack';

const repoRoot = join(__dirname, '../..');
const call = handlerCaller(handler);
/** Short, so a test can outwait it; deployed it is at most a minute (see the configuration). */
const cacheMs = 300;
let dataDir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run --silent account:keys -- ...args` as an operator types it. */
function accountKeys(args: string[], env: Record<string, string | undefined> = { DATA_DIR: dataDir }): Promise<Run> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'account:keys', '--', ...args], { cwd: repoRoot, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The single JSON object a successful run prints, on a line of its own. */
function printed(run: Run): Record<string, unknown> {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** A failed run: exit 1, nothing on stdout, one `error: ...` line on stderr. */
function failure(run: Run): string {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

async function listTypes(keys: Keys) {
  return call(keys, 'GET', 'contacts-type');
}

const refused = { status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } };

beforeAll(() => {
  // The script finds the local stack's DynamoDB through DATA_DIR, as after `npm start`.
  dataDir = mkdtempSync(join(tmpdir(), 'account-keys-'));
  writeFileSync(join(dataDir, 'local-endpoints.json'), JSON.stringify({ dynamodb: process.env.DYNAMODB_ENDPOINT }));
  process.env.CREDENTIAL_CACHE_MS = String(cacheMs);
  resetConfig();
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  delete process.env.CREDENTIAL_CACHE_MS;
  resetConfig();
});

describe('account:keys rotate', () => {
  test('adds a key pair to the account; the old pair keeps working and sees the same records', async () => {
    // Prepare
    const account = await newAccount('Rotating');
    const bystander = await newAccount('Bystander');
    expect((await call(account, 'POST', 'contacts-type/add', { body: multipart({ name: 'Before rotation' }) })).status).toBe(200);

    // Act
    const rotated = printed(await accountKeys(['rotate', '--account', String(account.account_id)]));

    // Assess
    expect(Object.keys(rotated)).toEqual(['account_id', 'public_key', 'secret_key']);
    expect(rotated.account_id).toBe(account.account_id);
    expect(rotated.public_key).toMatch(/^pk_[0-9a-f]{32}$/);
    expect(rotated.secret_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(rotated.public_key).not.toBe(account.public_key);
    const newKeys = rotated as unknown as Keys;
    const byNew = await listTypes(newKeys);
    const byOld = await listTypes(account);
    expect(byNew.status).toBe(200);
    expect(byNew).toEqual(byOld);
    expect((byNew.body.message as { contactTypes: { name: string }[] }).contactTypes.map((type) => type.name)).toEqual(['Before rotation']);
    expect((await listTypes(bystander)).status).toBe(200);
    // The new secret goes with the new public key only.
    expect(await listTypes({ public_key: account.public_key, secret_key: newKeys.secret_key })).toEqual(refused);
  }, 60_000);

  test('an unknown account is refused with one line on stderr', async () => {
    const line = failure(await accountKeys(['rotate', '--account', '987654321']));

    expect(line).toBe('error: account 987654321 does not exist');
  }, 60_000);

  test.each([
    [[], /^error: say rotate or revoke; usage: /],
    [['rotate'], /^error: rotate needs --account ID; usage: /],
    [['rotate', '--account', 'abc'], /^error: --account must be a positive integer, got 'abc'; usage: /],
    [['revoke'], /^error: revoke needs --public-key KEY; usage: /],
    [['revoke', '--public-key', 'pk_x', '--account', '1'], /^error: revoke takes --public-key only, not --account; usage: /],
    [['rotate', '--account', '1', '--region', 'eu-west-1'], /^error: --region goes with --table; usage: /],
    [['rename', '--account', '1'], /^error: unknown command 'rename': say rotate or revoke; usage: /],
  ])('%j is a usage error', async (args, message) => {
    expect(failure(await accountKeys(args))).toMatch(message);
  }, 60_000);
});

describe('account:keys revoke', () => {
  test('a revoked key is refused once the credential cache has expired; the other keys are untouched', async () => {
    // Prepare
    const account = await newAccount('Revoking');
    const bystander = await newAccount('Bystander');
    const rotated = printed(await accountKeys(['rotate', '--account', String(account.account_id)])) as unknown as NewAccount;
    expect((await listTypes(account)).status).toBe(200); // the old key is now cached in this container

    // Act
    const revoked = printed(await accountKeys(['revoke', '--public-key', account.public_key]));
    await sleep(cacheMs + 50);

    // Assess
    expect(revoked).toEqual({ revoked: account.public_key });
    expect(await listTypes(account)).toEqual(refused);
    expect((await listTypes(rotated)).status).toBe(200);
    expect((await listTypes(bystander)).status).toBe(200);
  }, 60_000);

  test('an unknown or already revoked key is refused with one line on stderr', async () => {
    // Prepare
    const account = await newAccount('Twice');
    await addKeyPair(account.account_id);
    printed(await accountKeys(['revoke', '--public-key', account.public_key]));

    // Act
    const again = await accountKeys(['revoke', '--public-key', account.public_key]);
    const unknown = await accountKeys(['revoke', '--public-key', 'pk_00000000000000000000000000000000']);

    // Assess
    expect(failure(again)).toBe(`error: no key ${account.public_key}: it does not exist or was already revoked`);
    expect(failure(unknown)).toBe('error: no key pk_00000000000000000000000000000000: it does not exist or was already revoked');
  }, 60_000);

  test("an account's last key cannot be revoked, and still works", async () => {
    // Prepare
    const account = await newAccount('Single key');

    // Act
    const line = failure(await accountKeys(['revoke', '--public-key', account.public_key]));
    await sleep(cacheMs + 50);

    // Assess
    expect(line).toBe(`error: ${account.public_key} is the last key of account ${account.account_id}; rotate first, then revoke it`);
    expect((await listTypes(account)).status).toBe(200);
  }, 60_000);

  test('after a rotation, either pair can be revoked but not both', async () => {
    // Prepare
    const account = await newAccount('Two keys');
    const rotated = await addKeyPair(account.account_id);

    // Act
    const results = await Promise.allSettled([revokeKeyPair(account.public_key), revokeKeyPair(rotated.public_key)]);
    await sleep(cacheMs + 50);

    // Assess
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const statuses = [(await listTypes(account)).status, (await listTypes(rotated)).status];
    expect(statuses.sort()).toEqual([200, 401]);
  }, 60_000);

  test('an account created before keys were counted still keeps its last key', async () => {
    // Prepare: such an account's profile has no key count, and exactly one key.
    const account = await newAccount('Older');
    await db().send(new UpdateCommand({ TableName: tableName(), Key: accountKey(account.account_id), UpdateExpression: 'REMOVE key_count' }));

    // Act
    const lastKey = await revokeKeyPair(account.public_key).catch((error: unknown) => error);
    const rotated = await addKeyPair(account.account_id);
    await revokeKeyPair(account.public_key);
    const lastAgain = await revokeKeyPair(rotated.public_key).catch((error: unknown) => error);

    // Assess
    expect(lastKey).toBeInstanceOf(LastKeyPairError);
    expect(lastAgain).toBeInstanceOf(LastKeyPairError);
    await sleep(cacheMs + 50);
    expect((await listTypes(rotated)).status).toBe(200);
    expect(await listTypes(account)).toEqual(refused);
  }, 60_000);

  test('rotating an unknown account and revoking an unknown key are RecordNotFound', async () => {
    await expect(addKeyPair(987654322)).rejects.toBeInstanceOf(RecordNotFound);
    await expect(revokeKeyPair('pk_ffffffffffffffffffffffffffffffff')).rejects.toBeInstanceOf(RecordNotFound);
  });
});

describe('account:keys --table', () => {
  test('rotates and revokes on a named table through the SDK’s ordinary endpoint and credentials', async () => {
    // Prepare: the deployed path, pointed at DynamoDB Local by the SDK's own endpoint variable.
    const account = await newAccount('Deployed');
    const deployed = {
      DATA_DIR: join(dataDir, 'no-local-stack-here'),
      AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
    };
    const table = ['--table', tableName(), '--region', 'us-east-1'];

    // Act
    const rotated = printed(await accountKeys(['rotate', '--account', String(account.account_id), ...table], deployed)) as unknown as NewAccount;
    const revoked = printed(await accountKeys(['revoke', '--public-key', account.public_key, ...table], deployed));
    const missingTable = await accountKeys(['revoke', '--public-key', rotated.public_key, '--table', 'no-such-table', '--region', 'us-east-1'], deployed);
    await sleep(cacheMs + 50);

    // Assess
    expect(rotated.account_id).toBe(account.account_id);
    expect(revoked).toEqual({ revoked: account.public_key });
    expect(failure(missingTable)).toBe('error: table no-such-table: the table does not exist');
    expect((await listTypes(rotated)).status).toBe(200);
    expect(await listTypes(account)).toEqual(refused);
  }, 60_000);
});
