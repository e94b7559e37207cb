// The local scheduler adapter and its poller on DynamoDB Local: jobs fire once, on time, survive
// without a poller, can be cancelled or moved, and failed ones are retried.
import { resetConfig } from '../../shared/config';
import { dueLocalJobs } from '../../shared/scheduling/local-scheduler';
import { cancel, scheduleAt } from '../../shared/scheduling/scheduler';
import { startSchedulerPoller, type SchedulerPoller, type ScheduleTargetHandler } from '../../infra/local/scheduler-poller';
import { sleep, useTestTable, waitFor, type TestTable } from '../support/local-stack';

let table: TestTable;
const pollers: SchedulerPoller[] = [];
let sequence = 0;

/** A poller that records what its `send-dispatch` target receives. */
function recordingPoller(fired: Array<{ payload: Record<string, unknown>; at: number }>, options: { fail?: () => boolean; log?: (line: string) => void } = {}) {
  const target: ScheduleTargetHandler = async (payload) => {
    fired.push({ payload, at: Date.now() });
    if (options.fail?.()) throw new Error('target failed');
  };
  const poller = startSchedulerPoller({ intervalMs: 50, retryDelayMs: 50, targets: { 'send-dispatch': target }, log: options.log ?? (() => undefined) });
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
