// The local scheduler's clock: every ~250 ms, Query the due jobs, claim each with a conditional delete
// and fire its target function, as EventBridge Scheduler would invoke the Lambda.
import { randomUUID } from 'node:crypto';
import { claimLocalJob, dueLocalJobs, requeueLocalJob, type ClaimedJob } from '../../shared/scheduling/local-scheduler';
import type { EventTarget } from '../../shared/scheduling/scheduled-job';
import { loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';

/** A schedule target: receives the job's payload, as the Lambda receives the schedule's Input. */
export type ScheduleTargetHandler = (payload: Record<string, unknown>) => Promise<unknown>;

export interface SchedulerPollerOptions {
  intervalMs?: number;
  /** Attempts per job before it is given up and logged. */
  maxAttempts?: number;
  /** Delay before a failed job is tried again (doubled on each further failure). */
  retryDelayMs?: number;
  /** Targets handled in code (tests); the others load `functions/<target>/handler.ts`. */
  targets?: Partial<Record<EventTarget, ScheduleTargetHandler>>;
  log?: (line: string) => void;
}

export interface SchedulerPoller {
  /** One poll now (tests); resolves once the claimed jobs have been handed to their targets. */
  poll(): Promise<void>;
  /** Stop polling and wait for jobs that are running. */
  stop(): Promise<void>;
}

type FunctionTarget = (event: Record<string, unknown>, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

export function startSchedulerPoller(options: SchedulerPollerOptions = {}): SchedulerPoller {
  const intervalMs = options.intervalMs ?? 250;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  const log = options.log ?? ((line: string) => console.error(line));
  const running = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let lastPollError = '';

  async function invoke(job: ClaimedJob): Promise<void> {
    const payload = JSON.parse(job.input) as Record<string, unknown>;
    const inCode = options.targets?.[job.target];
    if (inCode) {
      await inCode(payload);
      return;
    }
    const handler = loadFunctionHandler(job.target) as FunctionTarget;
    await handler(payload, lambdaContext(job.target, randomUUID()));
  }

  async function fire(job: ClaimedJob): Promise<void> {
    try {
      await invoke(job);
    } catch (error) {
      const attempts = job.attempts + 1;
      const reason = (error as Error).message;
      if (attempts >= maxAttempts) {
        log(`scheduler: job ${job.name} (${job.target}) failed ${attempts} time(s) and is given up: ${reason}`);
        return;
      }
      // Back in the table, so the retry survives a restart like any other job.
      const retryAt = new Date(Date.now() + retryDelayMs * 2 ** (attempts - 1));
      let outcome = `retrying at ${retryAt.toISOString()}`;
      try {
        if (!(await requeueLocalJob({ ...job, at: retryAt, attempts }))) outcome = 'a newer job of that name replaced it';
      } catch (requeueError) {
        outcome = `it could not be put back: ${(requeueError as Error).message}`;
      }
      log(`scheduler: job ${job.name} (${job.target}) failed (attempt ${attempts} of ${maxAttempts}): ${reason}; ${outcome}`);
    }
  }

  async function pollOnce(): Promise<void> {
    let due;
    try {
      due = await dueLocalJobs(new Date());
      lastPollError = '';
    } catch (error) {
      // Logged once per distinct error, so a stopped DynamoDB does not flood the console.
      const message = (error as Error).message;
      if (message !== lastPollError) log(`scheduler: polling failed: ${message}`);
      lastPollError = message;
      return;
    }
    for (const entry of due) {
      if (stopped) return;
      const job = await claimLocalJob(entry).catch((error: Error) => {
        log(`scheduler: claiming job ${entry.name} failed: ${error.message}`);
        return undefined;
      });
      if (!job) continue;
      // Fired without waiting, so one slow target does not hold back the other due jobs.
      const run = fire(job).finally(() => running.delete(run));
      running.add(run);
    }
  }

  function poll(): Promise<void> {
    polling ??= pollOnce().finally(() => (polling = undefined));
    return polling;
  }

  function loop(): void {
    if (stopped) return;
    void poll().finally(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  }
  loop();

  return {
    poll,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await polling;
      await Promise.allSettled([...running]);
    },
  };
}
