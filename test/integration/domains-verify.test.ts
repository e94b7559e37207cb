// `domains:verify`, the local stand-in for DNS, run as the operator runs it (npm, a child process, one
// JSON line on stdout) on the local stack's DATA_DIR: it verifies a domain for the one account that
// registered it, and refuses what it cannot do with one line on stderr.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handler } from '../../functions/sender-domains/handler';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart } from '../support/events';

const repoRoot = join(__dirname, '../..');
const call = handlerCaller(handler);
let dataDir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function domainsVerify(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'domains:verify', '--', ...args], { cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDir } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'domains-verify-'));
  writeFileSync(join(dataDir, 'local-endpoints.json'), JSON.stringify({ dynamodb: process.env.DYNAMODB_ENDPOINT }));
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('domains:verify', () => {
  test('verifies a registered domain for the account that registered it', async () => {
    const keys = await newAccount('Domain verifier');
    const domain = `mail.d${randomBytes(5).toString('hex')}.example.com`;
    expect((await call(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) })).status).toBe(200);

    const run = await domainsVerify(['--domain', domain.toUpperCase()]);

    expect(run).toEqual({ code: 0, stdout: `${JSON.stringify({ domain, account_id: keys.account_id, status: 'verified' })}\n`, stderr: '' });
    // Stored at once: the list, which does not ask SES, shows it.
    const { body } = await call(keys, 'GET', 'sender-domains');
    expect((body.message as { senderDomains: { status: string }[] }).senderDomains.map((entry) => entry.status)).toEqual(['verified']);
  }, 60_000);

  test.each([
    [['--domain', 'nobody.example.org'], 'error: no account has registered nobody.example.org: register it with POST sender-domains/save first'],
    [[], 'error: say which domain with --domain; usage: npm run --silent domains:verify -- --domain DOMAIN'],
    [['--domain', 'x.example.org', '--table', 'prod'], 'error: a deployed domain is verified by DNS: publish the CNAMEs that sender-domains/save answered, then ask sender-domains/details'],
  ])('refuses %j with one line on stderr', async (args, line) => {
    expect(await domainsVerify(args)).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
  }, 60_000);
});
