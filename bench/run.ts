// `npm run bench`: starts the whole local stack in this process (free ports, a temporary DATA_DIR,
// quiet), runs the scenarios of issue 7, prints a table and writes JSON to bench/results/<ISO>.json
// and bench/results/latest.json. Every figure is measured by the harness; nothing is hand-timed.
//
// Scenarios (BENCH_SCENARIOS=1,2,3,4,5 selects; sizes by env, defaults sized for a 2-core machine):
//   1 API latency p50/p99 and req/s, list + create, autocannon on loopback
//       BENCH_API_SECONDS (10), BENCH_API_CONNECTIONS (10)
//   2 DynamoDB round trips per operation, counted by a middleware on the document client
//   3 bundle size (esbuild, minified, SDK bundled) and cold import+init (median of fresh processes)
//       BENCH_COLD_RUNS (20)
//   4 bench/single-send-10k.ts and bench/automation-steps.ts as child processes
//       BENCH_SEND_RECIPIENTS (2000), BENCH_STEP_ENROLMENTS (2000)
//   5 CSV import rows/s through contacts/upload-csv + contacts/import-status
//       BENCH_CSV_ROWS (5000)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { startLocalStack, type LocalStack } from '../infra/local/local-stack';
import { db } from '../shared/data/client';


interface AutocannonResult {
  latency: { p50: number; p99: number; average: number; max: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
  duration: number;
}

const root = resolve(__dirname, '..');
const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const settings = {
  scenarios: (process.env.BENCH_SCENARIOS ?? '1,2,3,4,5').split(',').map((s) => Number(s.trim())),
  apiSeconds: num('BENCH_API_SECONDS', 10),
  apiConnections: num('BENCH_API_CONNECTIONS', 10),
  coldRuns: num('BENCH_COLD_RUNS', 20),
  sendRecipients: num('BENCH_SEND_RECIPIENTS', 2_000),
  stepEnrolments: num('BENCH_STEP_ENROLMENTS', 2_000),
  csvRows: num('BENCH_CSV_ROWS', 5_000),
  childTimeoutMs: num('BENCH_CHILD_TIMEOUT_MS', 240_000),
};

interface Row {
  scenario: string;
  figure: string;
  value: number | null;
  unit: string;
  target: string;
  met: 'yes' | 'no' | '-';
}
const rows: Row[] = [];
const details: Record<string, unknown> = {};
const notDone: string[] = [];

function row(scenario: string, figure: string, value: number | null, unit: string, target?: { op: '<=' | '>='; limit: number; text?: string }) {
  let met: Row['met'] = '-';
  if (target && value !== null) met = (target.op === '<=' ? value <= target.limit : value >= target.limit) ? 'yes' : 'no';
  if (target && value === null) met = 'no';
  rows.push({ scenario, figure, value, unit, target: target ? (target.text ?? `${target.op} ${target.limit} ${unit}`) : '-', met });
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// HTTP helpers against the stack

function multipartBody(fields: Record<string, string | { filename: string; content: string }>): { contentType: string; body: Buffer } {
  const boundary = `----bench${randomUUID().replace(/-/g, '')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'object') {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: text/csv\r\n\r\n`), Buffer.from(value.content), Buffer.from('\r\n'));
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

class Api {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string>,
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async call(method: string, path: string, options: { query?: Record<string, string | number>; form?: Record<string, string | { filename: string; content: string }> } = {}): Promise<{ status: number; body: any }> {
    const url = new URL(path, this.base);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
    const init: RequestInit = { method, headers: { ...this.headers } };
    if (options.form) {
      const { contentType, body } = multipartBody(options.form);
      init.headers = { ...this.headers, 'Content-Type': contentType };
      init.body = body;
    }
    const response = await fetch(url, init);
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  }

  async ok(method: string, path: string, options: Parameters<Api['call']>[2] = {}) {
    const result = await this.call(method, path, options);
    if (result.status !== 200) throw new Error(`${method} ${path} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 400)}`);
    return result.body;
  }

  async contactTypeId(name: string): Promise<number> {
    const body = await this.ok('GET', 'contacts-type', { query: { limit: 1000 } });
    const list = (body.message?.contactTypes ?? []) as { id: number; name: string }[];
    const found = list.filter((type) => type.name === name).sort((a, b) => b.id - a.id)[0];
    if (!found) throw new Error(`contact type '${name}' not in the list`);
    return found.id;
  }

  async contactId(email: string): Promise<number> {
    const body = await this.ok('GET', 'contacts/list', { query: { limit: 1000 } });
    const list = (body.message?.contacts ?? []) as { id: number; email: string }[];
    const found = list.find((contact) => contact.email === email);
    if (!found) throw new Error(`contact '${email}' not in the list`);
    return found.id;
  }
}

/** One autocannon run in a child process (bench/lib/load.cjs), so the load generator does not share the stack's event loop. */
function loadInChild(options: Record<string, unknown>): Promise<AutocannonResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bench/lib/load.cjs'), JSON.stringify(options)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      if (code !== 0) fail(new Error(`autocannon exited ${code}: ${stderr.slice(-400)}`));
      else done(JSON.parse(stdout) as AutocannonResult);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario 1: API latency under bounded concurrent load

async function scenarioApiLatency(api: Api): Promise<void> {
  const scenario = '1 API latency';
  // A handful of types so the list has something to show; the list runs before the create load.
  for (let i = 0; i < 20; i++) await api.ok('POST', 'contacts-type/add', { form: { name: `Seed type ${i}` } });
  const common = { connections: settings.apiConnections, duration: settings.apiSeconds, pipelining: 1 };

  log(`list: GET /api/contacts-type, ${settings.apiConnections} connections, ${settings.apiSeconds} s (autocannon in a child process)`);
  const list = await loadInChild({ ...common, url: new URL('contacts-type', api.base).toString(), method: 'GET', headers: api.headers });

  log(`create: POST /api/contacts-type/add (multipart), ${settings.apiConnections} connections, ${settings.apiSeconds} s`);
  const create = await loadInChild({ ...common, url: new URL('contacts-type/add', api.base).toString(), method: 'POST', headers: api.headers, multipartName: 'Load type' });

  for (const [name, result] of [
    ['list GET contacts-type', list],
    ['create POST contacts-type/add', create],
  ] as const) {
    details[`api_${name.split(' ')[0]}`] = {
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      avg_ms: result.latency.average,
      max_ms: result.latency.max,
      requests_per_s: result.requests.average,
      total: result.requests.total,
      ok_2xx: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    };
    row(scenario, `${name} p50`, result.latency.p50, 'ms');
    row(scenario, `${name} p99`, result.latency.p99, 'ms', { op: '<=', limit: 25 });
    row(scenario, `${name} throughput`, round(result.requests.average, 0), 'req/s');
    row(scenario, `${name} non-2xx + errors`, result.non2xx + result.errors + result.timeouts, 'responses', { op: '<=', limit: 0, text: '0' });
  }
}

// ---------------------------------------------------------------------------------------------
// Scenario 2: DynamoDB round trips per operation, counted by middleware on the document client

interface Counter {
  sends: number;
  attempts: number;
  commands: string[];
}
const counter: Counter = { sends: 0, attempts: 0, commands: [] };
let counterInstalled = false;

function installRoundTripCounter(): void {
  if (counterInstalled) return;
  const client = db();
  // One per client.send() (initialize runs once per send, before retries)...
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counter.sends++;
      counter.commands.push(String((context as { commandName?: string }).commandName ?? '?'));
      return next(args);
    },
    { step: 'initialize', name: 'benchCountSends', priority: 'high' },
  );
  // ...and one per HTTP attempt (finalizeRequest, low priority: inside the retry middleware).
  client.middlewareStack.add(
    (next) => async (args) => {
      counter.attempts++;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchCountAttempts', priority: 'low' },
  );
  counterInstalled = true;
}

async function counted<T>(run: () => Promise<T>): Promise<{ sends: number; attempts: number; commands: string[]; result: T }> {
  counter.sends = 0;
  counter.attempts = 0;
  counter.commands = [];
  const result = await run();
  return { sends: counter.sends, attempts: counter.attempts, commands: [...counter.commands], result };
}

async function scenarioRoundTrips(api: Api): Promise<void> {
  const scenario = '2 DynamoDB round trips';
  installRoundTripCounter();
  // Self-check: one GetItem through the document client is exactly one counted send.
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const check = await counted(() => db().send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'bench#none', sk: 'bench#none' } })));
  if (check.sends !== 1 || check.attempts !== 1) throw new Error(`round-trip counter self-check counted ${check.sends} sends / ${check.attempts} attempts for one GetItem`);

  // Warm: the credential cache and each function's module, then every op once more, counted.
  await api.ok('GET', 'contacts-type');
  await api.ok('GET', 'contacts/list');

  const tag = randomUUID().slice(0, 8);
  const ops: { name: string; warm: () => Promise<unknown>; measure: () => Promise<unknown> }[] = [];
  let typeA = 0;
  let typeB = 0;
  ops.push({
    name: 'contacts-type add',
    warm: async () => api.ok('POST', 'contacts-type/add', { form: { name: `RT warm ${tag}` } }),
    measure: async () => api.ok('POST', 'contacts-type/add', { form: { name: `RT ${tag}` } }),
  });
  ops.push({ name: 'contacts-type list', warm: () => api.ok('GET', 'contacts-type'), measure: () => api.ok('GET', 'contacts-type') });
  const lookUpTypes = async () => {
    typeA = await api.contactTypeId(`RT ${tag}`);
    typeB = await api.contactTypeId(`RT warm ${tag}`);
  };
  ops.push({
    name: 'contacts-type view',
    warm: async () => {
      await lookUpTypes();
      return api.ok('GET', 'contacts-type/view', { query: { contact_type_id: typeB } });
    },
    measure: () => api.ok('GET', 'contacts-type/view', { query: { contact_type_id: typeA } }),
  });
  ops.push({
    name: 'contacts-type update',
    warm: () => api.ok('POST', 'contacts-type/update', { form: { id: String(typeB), name: `RT warm2 ${tag}` } }),
    measure: () => api.ok('POST', 'contacts-type/update', { form: { id: String(typeA), name: `RT renamed ${tag}` } }),
  });
  const contact = (email: string) => ({ contact_type_id: String(typeA), first_name: 'Round', last_name: 'Trip', email, country: '233', city: 'Springfield' });
  let contactId = 0;
  let warmContactId = 0;
  ops.push({
    name: 'contacts add',
    warm: () => api.ok('POST', 'contacts/add', { form: contact(`rt-warm-${tag}@example.com`) }),
    measure: () => api.ok('POST', 'contacts/add', { form: contact(`rt-${tag}@example.com`) }),
  });
  ops.push({
    name: 'contacts details',
    warm: async () => {
      contactId = await api.contactId(`rt-${tag}@example.com`);
      warmContactId = await api.contactId(`rt-warm-${tag}@example.com`);
      return api.ok('GET', 'contacts/details', { query: { contact_id: warmContactId } });
    },
    measure: () => api.ok('GET', 'contacts/details', { query: { contact_id: contactId } }),
  });
  // Deleting a type with contacts may be refused; delete a fresh, empty pair.
  let emptyA = 0;
  let emptyB = 0;
  ops.push({
    name: 'contacts-type delete',
    warm: async () => {
      await api.ok('POST', 'contacts-type/add', { form: { name: `RT del ${tag}` } });
      await api.ok('POST', 'contacts-type/add', { form: { name: `RT del warm ${tag}` } });
      emptyA = await api.contactTypeId(`RT del ${tag}`);
      emptyB = await api.contactTypeId(`RT del warm ${tag}`);
      return api.ok('DELETE', 'contacts-type/delete', { query: { contact_type_id: emptyB } });
    },
    measure: () => api.ok('DELETE', 'contacts-type/delete', { query: { contact_type_id: emptyA } }),
  });

  const perOp: Record<string, unknown> = {};
  for (const op of ops) {
    await op.warm();
    const result = await counted(op.measure);
    perOp[op.name] = { sends: result.sends, http_attempts: result.attempts, commands: result.commands };
    row(scenario, `${op.name}`, result.sends, 'round trips', { op: '<=', limit: 2 });
  }
  details.round_trips = perOp;
}

// ---------------------------------------------------------------------------------------------
// Scenario 5: CSV import rows/s

async function scenarioCsvImport(api: Api): Promise<void> {
  const scenario = '5 CSV import';
  const rowsWanted = settings.csvRows;
  await api.ok('POST', 'contacts-type/add', { form: { name: 'CSV bench' } });
  const typeId = await api.contactTypeId('CSV bench');
  const lines = ['email,first_name,last_name,country,city'];
  for (let i = 0; i < rowsWanted; i++) lines.push(`csv-${String(i).padStart(7, '0')}@example.com,Reader ${i},Bench,US,City ${i % 13}`);
  const content = lines.join('\r\n');
  log(`CSV import: ${rowsWanted} rows (${Math.round(content.length / 1024)} KB)`);
  const started = performance.now();
  const answer = await api.ok('POST', 'contacts/upload-csv', { form: { contact_type_id: String(typeId), file: { filename: 'bench.csv', content } } });
  const uploadMs = performance.now() - started;
  const importId = answer.import_id as number;
  let job: Record<string, unknown>;
  const deadline = Date.now() + settings.childTimeoutMs;
  for (;;) {
    const status = await api.ok('GET', 'contacts/import-status', { query: { id: importId } });
    job = status.message.import as Record<string, unknown>;
    if (job.status === 'completed' || job.status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`import ${importId} not finished: ${JSON.stringify(job).slice(0, 300)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const totalMs = performance.now() - started;
  const { errors, ...summary } = job as { errors?: unknown[] } & Record<string, unknown>;
  details.csv_import = { rows: rowsWanted, upload_answer_ms: round(uploadMs), total_ms: round(totalMs), job: summary, error_rows: Array.isArray(errors) ? errors.length : errors };
  if (job.status !== 'completed') throw new Error(`import ${importId} ${String(job.status)}`);
  row(scenario, `${rowsWanted} rows, upload to completed`, round(totalMs / 1000, 2), 's');
  row(scenario, `${rowsWanted} rows import rate`, Math.round(rowsWanted / (totalMs / 1000)), 'rows/s', { op: '>=', limit: 5000 });
}

// ---------------------------------------------------------------------------------------------
// Scenario 3: bundle size and cold import+init

async function scenarioColdStart(): Promise<void> {
  const scenario = '3 bundle + cold start';
  const outDir = mkdtempSync(join(tmpdir(), 'email-service-bundles-'));
  const families = readdirSync(join(root, 'functions')).filter((name) => existsSync(join(root, 'functions', name, 'handler.ts'))).sort();
  const perFunction: Record<string, unknown> = {};
  const env = {
    ...process.env,
    APP_RUNTIME: 'local',
    TABLE_NAME: 'bench-cold',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'silent',
    NODE_OPTIONS: '',
  };
  try {
    for (const family of families) {
      const outfile = join(outDir, `${family}.js`);
      try {
        await build({
          entryPoints: [join(root, 'functions', family, 'handler.ts')],
          outfile,
          bundle: true,
          minify: true,
          platform: 'node',
          target: 'node20',
          format: 'cjs',
          logLevel: 'silent',
        });
      } catch (error) {
        perFunction[family] = { error: (error as Error).message.slice(0, 300) };
        row(scenario, `${family} bundle`, null, 'KB', { op: '<=', limit: 350 });
        continue;
      }
      const sizeKb = round(statSync(outfile).size / 1024, 1);
      const code = `const t=process.hrtime.bigint();const m=require(${JSON.stringify(outfile)});const d=Number(process.hrtime.bigint()-t)/1e6;if(typeof m.handler!=='function')throw new Error('no handler');process.stdout.write(String(d));`;
      const times: number[] = [];
      let failure: string | undefined;
      for (let i = 0; i < settings.coldRuns; i++) {
        const run = spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8', timeout: 30_000 });
        if (run.status !== 0) {
          failure = (run.stderr || run.stdout || `exit ${run.status}`).slice(0, 300);
          break;
        }
        times.push(Number(run.stdout.trim()));
      }
      const med = times.length === settings.coldRuns ? round(median(times), 1) : null;
      perFunction[family] = { bundle_kb: sizeKb, import_init_ms_median: med, import_init_ms_min: times.length ? round(Math.min(...times)) : null, import_init_ms_max: times.length ? round(Math.max(...times)) : null, runs: times.length, ...(failure ? { error: failure } : {}) };
      row(scenario, `${family} bundle`, sizeKb, 'KB', { op: '<=', limit: 350 });
      row(scenario, `${family} import+init median of ${settings.coldRuns}`, med, 'ms', { op: '<=', limit: 40 });
      log(`${family}: ${sizeKb} KB, ${med ?? 'failed'} ms`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  details.cold_start = perFunction;
}

// ---------------------------------------------------------------------------------------------
// Scenario 4: the existing send and automation scripts, as child processes

function runScript(script: string, arg: number): Promise<{ json: Record<string, unknown>; maxRssKb: number | null; wallMs: number }> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '-r', join(root, 'bench/lib/max-rss.cjs'), join(root, 'bench', script), String(arg)], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), settings.childTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const rss = /BENCH_MAX_RSS_KB=(\d+)/.exec(stderr);
      const start = stdout.search(/^\{/m);
      if (code !== 0 || start === -1) {
        fail(new Error(`${script} ${arg} exited ${code ?? signal}: ${(stderr || stdout).slice(-600)}`));
        return;
      }
      try {
        done({ json: JSON.parse(stdout.slice(start)) as Record<string, unknown>, maxRssKb: rss ? Number(rss[1]) : null, wallMs });
      } catch (error) {
        fail(new Error(`${script}: unreadable output (${(error as Error).message}): ${stdout.slice(0, 400)}`));
      }
    });
  });
}

async function scenarioSendScripts(): Promise<void> {
  const scenario = '4 send path';
  log(`single-send-10k.ts ${settings.sendRecipients}`);
  try {
    const send = await runScript('single-send-10k.ts', settings.sendRecipients);
    details.single_send = { ...send.json, peak_rss_kb: send.maxRssKb, wall_seconds: round(send.wallMs / 1000) };
    row(scenario, `single send ${settings.sendRecipients} recipients, dispatch+deliver`, Number(send.json.mails_per_second), 'mails/s', { op: '>=', limit: 2000 });
    row(scenario, 'single send process peak RSS (incl. setup)', send.maxRssKb === null ? null : round(send.maxRssKb / 1024, 0), 'MB');
  } catch (error) {
    details.single_send = { error: (error as Error).message };
    row(scenario, `single send ${settings.sendRecipients} recipients, dispatch+deliver`, null, 'mails/s', { op: '>=', limit: 2000 });
    log(`single send failed: ${(error as Error).message}`);
  }
  log(`automation-steps.ts ${settings.stepEnrolments}`);
  try {
    const steps = await runScript('automation-steps.ts', settings.stepEnrolments);
    details.automation_steps = { ...steps.json, peak_rss_kb: steps.maxRssKb, wall_seconds: round(steps.wallMs / 1000) };
    row(scenario, `automation steps ${settings.stepEnrolments} due enrolments`, Number(steps.json.mails_per_second), 'mails/s', { op: '>=', limit: 2000 });
  } catch (error) {
    details.automation_steps = { error: (error as Error).message };
    row(scenario, `automation steps ${settings.stepEnrolments} due enrolments`, null, 'mails/s', { op: '>=', limit: 2000 });
    log(`automation steps failed: ${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------

function printTable(): void {
  const header = ['scenario', 'figure', 'value', 'unit', 'target', 'met'];
  const body = rows.map((r) => [r.scenario, r.figure, r.value === null ? 'n/a' : String(r.value), r.unit, r.target, r.met]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => line[i]!.length)));
  const format = (line: string[]) => line.map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(' | ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const line of body) console.log(format(line));
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const startedAt = new Date();
  const started = performance.now();
  const want = (n: number) => settings.scenarios.includes(n);
  const failures: Record<string, string> = {};
  const attempt = async (name: string, run: () => Promise<void>) => {
    const t = performance.now();
    try {
      await run();
    } catch (error) {
      failures[name] = (error as Error).stack ?? String(error);
      notDone.push(`${name} (failed: ${(error as Error).message.slice(0, 200)})`);
      log(`${name} FAILED: ${(error as Error).message}`);
    }
    (details.scenario_seconds ??= {} as Record<string, number>);
    (details.scenario_seconds as Record<string, number>)[name] = round((performance.now() - t) / 1000);
  };

  if (want(1) || want(2) || want(5)) {
    const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
    let stack: LocalStack | undefined;
    try {
      log('starting the local stack');
      // The scheduler poller is slowed so its polls do not add DynamoDB calls to the counted ones.
      stack = await startLocalStack({ port: 0, dynamoPort: 0, sesPort: 0, quiet: true, log: () => undefined, dataDir, scheduler: { intervalMs: 3_600_000 } });
      details.stack_ready_ms = round(stack.readyMs);
      const api = new Api(stack.urls.api.replace('localhost', '127.0.0.1'), { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key });
      // Round trips first, on a near-empty account; then the load; then the import.
      if (want(2)) await attempt('2 DynamoDB round trips', () => scenarioRoundTrips(api));
      if (want(1)) await attempt('1 API latency', () => scenarioApiLatency(api));
      if (want(5)) await attempt('5 CSV import', () => scenarioCsvImport(api));
    } finally {
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (want(3)) await attempt('3 bundle + cold start', scenarioColdStart);
  if (want(4)) await attempt('4 send path', scenarioSendScripts);
  for (const n of [1, 2, 3, 4, 5]) if (!want(n)) notDone.push(`scenario ${n} (not selected by BENCH_SCENARIOS)`);

  rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
  const durationS = round((performance.now() - started) / 1000);
  printTable();
  console.log(`\n${rows.filter((r) => r.met === 'no').length} of ${rows.filter((r) => r.met !== '-').length} targeted figures miss their target; run took ${durationS} s`);
  if (notDone.length) console.log(`not done: ${notDone.join('; ')}`);

  const report = {
    started_at: startedAt.toISOString(),
    duration_seconds: durationS,
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_mb: Math.round(totalmem() / 2 ** 20), node: process.version, platform: process.platform },
    settings,
    results: rows,
    details,
    not_done: notDone,
    failures,
  };
  const outDir = join(root, 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = join(outDir, `${startedAt.toISOString().replace(/:/g, '-')}.json`);
  writeFileSync(file, json);
  writeFileSync(join(outDir, 'latest.json'), json);
  console.log(`results: ${file} and bench/results/latest.json`);
  if (Object.keys(failures).length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
