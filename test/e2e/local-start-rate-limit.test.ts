// `npm start` honours ACCOUNT_RATE_LIMIT: the real start script as its own process, with a limit of
// 2 requests per second per account, answers the demo account's burst with 429s over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '../../infra/local/ports';
import { newDataDir, sleep, waitFor } from '../support/local-stack';

const repoRoot = join(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');

let child: ChildProcess | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((done) => child?.once('exit', done));
    child.kill('SIGINT');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a burst past ACCOUNT_RATE_LIMIT is answered 429 with Retry-After, and the next second is served', async () => {
  // Prepare
  dataDir = newDataDir();
  const port = await findFreePort();
  const started = spawn(tsx, ['infra/local/start.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ACCOUNT_RATE_LIMIT: '2', PORT: String(port), DYNAMODB_PORT: String(await findFreePort()), SES_PORT: String(await findFreePort()), DATA_DIR: dataDir },
  });
  child = started;
  let stdout = '';
  started.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await waitFor(() => stdout.includes('Ctrl+C stops everything.'), 50_000, 'the ready banner');
  const headers = {
    PublicKey: /PublicKey\s+(\S+)/.exec(stdout)?.[1] ?? '',
    SecretKey: /SecretKey\s+(\S+)/.exec(stdout)?.[1] ?? '',
  };
  const list = () => fetch(`http://localhost:${port}/api/contacts-type`, { headers });

  // Act: eight at once can span at most a few seconds' windows of two.
  const burst = await Promise.all(Array.from({ length: 8 }, list));
  await sleep(1_100);
  const later = await list();

  // Assess
  const refused = burst.filter((response) => response.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  expect(burst.every((response) => response.status === 200 || response.status === 429)).toBe(true);
  expect(burst.map((response) => response.headers.get('x-ratelimit-limit'))).toEqual(Array(8).fill('2'));
  const first = refused[0] as Response;
  expect(first.headers.get('retry-after')).toBe('1');
  expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(await first.json()).toEqual({ status: 'failed', errors: 'Too many requests: at most 2 per second per account. Try again in 1 second.' });
  expect(later.status).toBe(200);
  expect(later.headers.get('x-ratelimit-limit')).toBe('2');
}, 70_000);
