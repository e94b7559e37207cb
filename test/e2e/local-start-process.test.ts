// `npm start` and `account:create` as real processes: a taken port fails fast with one line and no
// Java, Ctrl+C stops everything with exit 0 and no DynamoDB Local left behind, and the script's errors.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { findFreePort } from '../../infra/local/ports';
import { newDataDir, waitFor } from '../support/local-stack';

const repoRoot = join(__dirname, '../..');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const dataDirs: string[] = [];

function tempDataDir(): string {
  const dir = newDataDir();
  dataDirs.push(dir);
  return dir;
}

/** DynamoDB Local processes using this DATA_DIR (its path is on their command line). */
function javaProcessesFor(dataDir: string): string[] {
  const found = spawnSync('pgrep', ['-f', `DynamoDBLocal.jar -dbPath ${dataDir}`], { encoding: 'utf8' });
  return found.stdout.split('\n').filter((line) => line.trim() !== '');
}

function runScript(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(tsx, [script, ...args], { cwd: repoRoot, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, ms: Date.now() - started });
    });
  });
}

afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  let blocker: Server | undefined;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    await new Promise((done) => (blocker?.listening ? blocker.close(done) : done(undefined)));
    // A test that failed half way still stops its stack the way a user would, so no Java is left.
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child?.once('exit', done));
      child.kill('SIGINT');
      await exited;
    }
  });

  test('a taken port fails fast with one line naming it, before Java starts', async () => {
    // Prepare
    const server = createServer();
    blocker = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const taken = (server.address() as { port: number }).port;
    const dataDir = tempDataDir();

    // Act
    const result = await runScript('infra/local/start.ts', [], {
      PORT: String(await findFreePort()),
      DYNAMODB_PORT: String(taken),
      SES_PORT: String(await findFreePort()),
      DATA_DIR: dataDir,
    });

    // Assess
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([`error: port ${taken} (DynamoDB Local) is already in use; set DYNAMODB_PORT to another port`]);
    expect(javaProcessesFor(dataDir)).toEqual([]);
  });

  test('SIGINT stops the gateway, the sink and DynamoDB Local, and exits 0', async () => {
    // Prepare
    const dataDir = tempDataDir();
    const port = await findFreePort();
    const started = spawn(tsx, ['infra/local/start.ts'], {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port), DYNAMODB_PORT: String(await findFreePort()), SES_PORT: String(await findFreePort()), DATA_DIR: dataDir },
    });
    child = started;
    let stdout = '';
    started.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    await waitFor(() => stdout.includes('Ctrl+C stops everything.'), 50_000, 'the ready banner');
    const health = await fetch(`http://localhost:${port}/_local/health`);
    expect(health.status).toBe(200);
    expect(javaProcessesFor(dataDir)).toHaveLength(1);

    // Act
    started.kill('SIGINT');
    const code = await exited;

    // Assess
    expect(code).toBe(0);
    expect(stdout).toMatch(/ready in \d+\.\d s/);
    expect(javaProcessesFor(dataDir)).toEqual([]);
    await expect(fetch(`http://localhost:${port}/_local/health`)).rejects.toThrow();
  }, 70_000);
});

describe('account:create', () => {
  test('without --name it fails with one line on stderr and nothing on stdout', async () => {
    const result = await runScript('infra/scripts/create-account.ts', [], { DATA_DIR: tempDataDir() });

    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: --name is required/)]);
  });

  test('with no local stack running it says so in one line', async () => {
    const result = await runScript('infra/scripts/create-account.ts', ['--name', 'Nobody'], { DATA_DIR: tempDataDir() });

    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: the local stack is not running/)]);
  });

  test('a stale local-endpoints.json (stack killed) is reported as not running', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'local-endpoints.json'), JSON.stringify({ dynamodb: `http://localhost:${await findFreePort()}` }));

    const result = await runScript('infra/scripts/create-account.ts', ['--name', 'Nobody'], { DATA_DIR: dataDir });

    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: the local stack is not running \(.* does not answer\)/)]);
  });
});
