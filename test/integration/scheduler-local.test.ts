// The local scheduler adapter and its poller on DynamoDB Local: jobs fire once, on time, survive
// without a poller and a killed one, can be cancelled or moved, and failed ones are retried.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { resetConfig } from '../../shared/config';
import { claimLocalJob, dueLocalJobs } from '../../shared/scheduling/local-scheduler';
import { cancel, scheduleAt } from '../../shared/scheduling/scheduler';
import { startNow } from '../../shared/scheduling/start-now';
import { startSchedulerPoller, type SchedulerPoller, type ScheduleTargetHandler } from '../../infra/local/scheduler-poller';
import { sleep, useTestTable, waitFor, type TestTable } from '../support/local-stack';

const repoRoot = join(__dirname, '../..');

let table: TestTable;
const pollers: SchedulerPoller[] = [];
let sequence = 0;

interface RecordingOptions {
  fail?: () => boolean;
  /** What the target does after recording the call. */
  run?: (payload: Record<string, unknown>) => Promise<void>;
  leaseMs?: number;
  /** How often it polls of its own accord (50 ms unless set). */
  intervalMs?: number;
  log?: (line: string) => void;
}

/** A poller that records what its `send-dispatch` target receives. */
function recordingPoller(fired: Array<{ payload: Record<string, unknown>; at: number }>, options: RecordingOptions = {}) {
  const target: ScheduleTargetHandler = async (payload) => {
    fired.push({ payload, at: Date.now() });
    await options.run?.(payload);
    if (options.fail?.()) throw new Error('target failed');
  };
  const poller = startSchedulerPoller({
    intervalMs: options.intervalMs ?? 50,
    retryDelayMs: 50,
    leaseMs: options.leaseMs,
    recurring: {},
    targets: { 'send-dispatch': target },
    log: options.log ?? (() => undefined),
  });
  pollers.push(poller);
  return poller;
}

const jobName = (label: string) => `${label}-${Date.now()}-${++sequence}`;

beforeAll(async () => {
  table = await useTestTable();
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

afterAll(async () => {
  await table.stop();
  resetConfig();
});

test('a job due in about a second fires once, not before its time', async () => {
  // Prepare
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  recordingPoller(fired);
  const at = new Date(Date.now() + 1_000);

  // Act
  await scheduleAt({ name: jobName('due-soon'), at, target: 'send-dispatch', payload: { single_send_id: 7, nested: { ok: true } } });
  await waitFor(() => fired.length > 0, 5_000, 'the job to fire');
  await sleep(300);

  // Assess
  expect(fired).toHaveLength(1);
  expect(fired[0]?.payload).toEqual({ single_send_id: 7, nested: { ok: true } });
  expect(fired[0]?.at).toBeGreaterThanOrEqual(at.getTime());
  // Polled every 50 ms; the wide margin only tells "fired at its time" from "fired much later" on a busy CI machine.
  expect(fired[0]?.at).toBeLessThan(at.getTime() + 15_000);
  expect(await dueLocalJobs(new Date(Date.now() + 3_600_000))).toEqual([]);
});

test('a cancelled job never fires and leaves nothing behind', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  recordingPoller(fired);
  const name = jobName('cancelled');

  await scheduleAt({ name, at: new Date(Date.now() + 300), target: 'send-dispatch', payload: {} });
  await cancel(name);
  await sleep(800);

  expect(fired).toHaveLength(0);
  const due = await dueLocalJobs(new Date(Date.now() + 3_600_000));
  expect(due.map((job) => job.name)).not.toContain(name);
});

test('cancelling a job that does not exist is not an error', async () => {
  await expect(cancel(jobName('never-scheduled'))).resolves.toBeUndefined();
});

test('two pollers on one table never fire a job twice', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  recordingPoller(fired);
  recordingPoller(fired);
  const names = Array.from({ length: 20 }, (_, index) => jobName(`race-${index}`));

  await Promise.all(names.map((name) => scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { name } })));
  await waitFor(() => fired.length >= names.length, 5_000, 'all jobs to fire');
  await sleep(300);

  const firedNames = fired.map((entry) => entry.payload.name);
  expect(firedNames).toHaveLength(names.length);
  expect(new Set(firedNames)).toEqual(new Set(names));
});

test('scheduling the same name again moves the job and replaces its payload', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  recordingPoller(fired);
  const name = jobName('moved');

  const start = Date.now();
  await scheduleAt({ name, at: new Date(start + 1_000), target: 'send-dispatch', payload: { version: 1 } });
  await scheduleAt({ name, at: new Date(start + 2_000), target: 'send-dispatch', payload: { version: 2 } });
  await sleep(start + 1_400 - Date.now());
  const firedEarly = fired.length;
  await waitFor(() => fired.length > 0, 5_000, 'the moved job to fire');
  await sleep(200);

  expect(firedEarly).toBe(0);
  expect(fired.map((entry) => entry.payload)).toEqual([{ version: 2 }]);
});

test('a job scheduled while no poller runs fires when one starts (it lives in the table)', async () => {
  const name = jobName('persisted');
  await scheduleAt({ name, at: new Date(Date.now() - 1_000), target: 'send-dispatch', payload: { name } });
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];

  recordingPoller(fired);
  await waitFor(() => fired.length > 0, 5_000, 'the stored job to fire');

  expect(fired.map((entry) => entry.payload)).toEqual([{ name }]);
});

test('a job started now fires at once: the poller is woken, not left to its next tick', async () => {
  // Prepare: a poller that, of its own accord, polls when it starts and then once an hour.
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  const poller = recordingPoller(fired, { intervalMs: 3_600_000 });
  await poller.poll();
  const name = jobName('now');

  // Act
  await startNow({ name, target: 'send-dispatch', payload: { name } });
  await waitFor(() => fired.length > 0, 20_000, 'the job started now to fire');

  // Assess: fired once, and gone from the table once it ran.
  expect(fired.map((entry) => entry.payload)).toEqual([{ name }]);
  const stored = async () => (await dueLocalJobs(new Date(Date.now() + 3_600_000))).map((job) => job.name);
  for (let look = 0; look < 100 && (await stored()).includes(name); look++) await sleep(50);
  expect(await stored()).not.toContain(name);
  expect(fired).toHaveLength(1);
});

test('a job started now while no poller runs lives in the table and fires when one starts', async () => {
  const name = jobName('now-stored');
  await startNow({ name, target: 'send-dispatch', payload: { name } });
  expect((await dueLocalJobs(new Date())).map((job) => job.name)).toContain(name);
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];

  recordingPoller(fired);
  await waitFor(() => fired.length > 0, 5_000, 'the stored job to fire');

  expect(fired.map((entry) => entry.payload)).toEqual([{ name }]);
});

test('a job started now is checked as a scheduled one: a name or payload EventBridge would refuse is refused', async () => {
  await expect(startNow({ name: 'no spaces', target: 'send-dispatch', payload: {} })).rejects.toThrow('Invalid schedule name');
  await expect(startNow({ name: jobName('big'), target: 'send-dispatch', payload: { text: 'x'.repeat(9_000) } })).rejects.toThrow('the limit is 8192');
});

test('a failing target is retried, and given up with a log line after 3 attempts', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  const lines: string[] = [];
  recordingPoller(fired, { fail: () => true, log: (line) => lines.push(line) });
  const name = jobName('failing');

  await scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { name } });
  await waitFor(() => lines.some((line) => line.includes('given up')), 5_000, 'the job to be given up');
  await sleep(300);

  expect(fired).toHaveLength(3);
  expect(lines.filter((line) => line.includes(name))).toHaveLength(3);
  expect(await dueLocalJobs(new Date(Date.now() + 3_600_000))).not.toContainEqual(expect.objectContaining({ name }));
});

test('a target that fails once succeeds on its retry', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  let failures = 0;
  recordingPoller(fired, { fail: () => failures++ === 0 });

  await scheduleAt({ name: jobName('flaky'), at: new Date(), target: 'send-dispatch', payload: { flaky: true } });
  await waitFor(() => fired.length >= 2, 5_000, 'the retry');
  await sleep(300);

  expect(fired).toHaveLength(2);
});

test('names and payloads EventBridge Scheduler would refuse are refused locally too', async () => {
  await expect(scheduleAt({ name: 'has space', at: new Date(), target: 'send-dispatch', payload: {} })).rejects.toThrow(/Invalid schedule name/);
  await expect(
    scheduleAt({ name: jobName('large'), at: new Date(), target: 'send-dispatch', payload: { blob: 'x'.repeat(9_000) } }),
  ).rejects.toThrow(/limit is 8192/);
});

test('a job running when its process is killed fires again as soon as a poller starts on the table', async () => {
  // Prepare: a poller in a process of its own takes the job and is killed while the target runs.
  const name = jobName('killed');
  await scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { name } });
  // Node itself with tsx's loader (not the tsx wrapper), so the kill reaches the process that polls.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/scheduler-poller-child.ts'], {
    cwd: repoRoot,
    env: { ...process.env, TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: table.endpoint },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  try {
    await waitFor(() => output.includes('fired'), 20_000, 'the job to fire in the child');
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];

  // Act: the next poller on the table (the stack started again), long before the killed run's lease ends.
  const started = Date.now();
  recordingPoller(fired);
  await waitFor(() => fired.length > 0, 10_000, 'the job to fire again');
  await sleep(300);

  // Assess
  expect(output.match(/^fired /gm)).toHaveLength(1);
  expect(fired.map((entry) => entry.payload)).toEqual([{ name }]);
  // The lease is 2 minutes: firing within seconds means the start released it.
  expect(fired[0]?.at).toBeLessThan(started + 60_000);
  expect(await dueLocalJobs(new Date(Date.now() + 3_600_000))).not.toContainEqual(expect.objectContaining({ name }));
}, 40_000);

test('a run longer than its lease keeps the job: a second poller never fires it meanwhile', async () => {
  // Prepare: a 300 ms lease, renewed every 100 ms, and a target that takes 1.5 s.
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  let finished = 0;
  const slow = { leaseMs: 300, run: async () => sleep(1_500).then(() => void finished++) };
  recordingPoller(fired, slow);
  recordingPoller(fired, slow);
  const name = jobName('slow');

  // Act
  await scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { name } });
  await waitFor(() => finished > 0, 10_000, 'the slow run to finish');
  await sleep(600);

  // Assess
  expect(fired).toHaveLength(1);
  expect(await dueLocalJobs(new Date(Date.now() + 3_600_000))).not.toContainEqual(expect.objectContaining({ name }));
});

test('a run that books the next run under its own name keeps that booking (the automation tick)', async () => {
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  const name = jobName('tick');
  const rebook = async (payload: Record<string, unknown>) => {
    if (payload.tick === 1) await scheduleAt({ name, at: new Date(Date.now() + 300), target: 'send-dispatch', payload: { tick: 2 } });
  };
  recordingPoller(fired, { run: rebook });

  await scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { tick: 1 } });
  await waitFor(() => fired.length >= 2, 5_000, 'the booked run');
  await sleep(300);

  expect(fired.map((entry) => entry.payload)).toEqual([{ tick: 1 }, { tick: 2 }]);
  expect(await dueLocalJobs(new Date(Date.now() + 3_600_000))).not.toContainEqual(expect.objectContaining({ name }));
});

test('a job whose runs were all cut short is given up, not started a fourth time', async () => {
  // Prepare: three claims whose leases (1 ms) end without the run finishing, as three killed processes leave them.
  const name = jobName('cut-short');
  await scheduleAt({ name, at: new Date(), target: 'send-dispatch', payload: { name } });
  for (let claims = 0; claims < 3; claims++) {
    await sleep(20);
    const due = (await dueLocalJobs(new Date())).find((job) => job.name === name);
    expect(await claimLocalJob(due as { name: string; dueKey: string }, 1)).toMatchObject({ attempts: claims });
  }
  await sleep(20);
  const fired: Array<{ payload: Record<string, unknown>; at: number }> = [];
  const lines: string[] = [];
  let jobsWhenLogged: Promise<Array<{ name: string }>> | undefined;

  // Act: the table is read the moment the line is logged, as an operator reading it would.
  recordingPoller(fired, {
    log: (line) => {
      lines.push(line);
      if (line.includes(name)) jobsWhenLogged ??= dueLocalJobs(new Date(Date.now() + 3_600_000));
    },
  });
  await waitFor(() => lines.some((line) => line.includes(name)), 5_000, 'the job to be given up');

  // Assess
  expect(lines.filter((line) => line.includes(name))).toEqual([expect.stringMatching(/started 3 time\(s\) without finishing and is given up/)]);
  expect(fired).toHaveLength(0);
  expect(await jobsWhenLogged).not.toContainEqual(expect.objectContaining({ name }));
});
