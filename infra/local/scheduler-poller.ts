// The local scheduler's clock: every ~250 ms, Query the due jobs, lease each with a conditional update
// and fire its target function, as EventBridge Scheduler would invoke the Lambda; the job is deleted
// only once its target has returned. It also runs the recurring targets (the send watchdog) on their
// fixed rate, as the stack's recurring schedules do.
import { randomUUID } from 'node:crypto';
import {
  claimLocalJob,
  completeLocalJob,
  defaultLeaseMs,
  dueLocalJobs,
  onLocalJobDueNow,
  releaseLocalJobLeases,
  renewLocalJobLease,
  retryLocalJob,
  type ClaimedJob,
} from '../../shared/scheduling/local-scheduler';
import { sendWatchdogIntervalMinutes, type EventTarget } from '../../shared/scheduling/scheduled-job';
import { identityRefreshIntervalMinutes } from '../../shared/sender-verification/refresh-service';
import { loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';

/** A schedule target: receives the job's payload, as the Lambda receives the schedule's Input. */
export type ScheduleTargetHandler = (payload: Record<string, unknown>) => Promise<unknown>;

export interface SchedulerPollerOptions {
  intervalMs?: number;
  /**
   * Attempts per job before it is given up and logged: 3, as Lambda runs a scheduled (asynchronous)
   * invocation once and retries it twice before its failure destination. A run cut short by a killed
   * process counts as one.
   */
  maxAttempts?: number;
  /**
   * How long a claimed job stays hidden from other pollers (default 2 minutes); renewed every third of
   * it while the target runs, so a run of any length is never fired twice by a live process. Short, so
   * a job whose lease the start could not release comes back soon; two missed renewals still leave it held.
   */
  leaseMs?: number;
  /**
   * Make the jobs another process leased due at once, before the first poll (default true). Right for
   * `npm start`, which refuses a second stack on one DATA_DIR: such a lease was left by a killed stack.
   */
  releaseLeasesAtStart?: boolean;
  /** Delay before a failed job is tried again (doubled on each further failure). */
  retryDelayMs?: number;
  /** Targets handled in code (tests); the others load `functions/<target>/handler.ts`. */
  targets?: Partial<Record<EventTarget, ScheduleTargetHandler>>;
  /**
   * Targets run on a fixed rate, in milliseconds (default: the send watchdog every 5 minutes), each
   * with the payload `{}`; a run still going when the next is due skips that one. (The automation step
   * runner books its own next run instead.)
   */
  recurring?: Partial<Record<RecurringTarget, number>>;
  log?: (line: string) => void;
}

/**
 * Functions run only on a fixed rate, never as a one-time job's target: deployed, an EventBridge rule
 * invokes them (infra/stack/event-wiring.ts).
 */
export type RecurringFunction = 'identity-refresh';
type RecurringTarget = EventTarget | RecurringFunction;

/** The recurring runs of `npm start`, as the deployed stack's recurring schedules and rules run them. */
export const defaultRecurringRuns: Partial<Record<RecurringTarget, number>> = {
  'send-watchdog': sendWatchdogIntervalMinutes * 60_000,
  'identity-refresh': identityRefreshIntervalMinutes * 60_000,
};

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
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const log = options.log ?? ((line: string) => console.error(line));
  const running = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let lastPollError = '';

  async function invokeTarget(target: RecurringTarget, payload: Record<string, unknown>): Promise<void> {
    const inCode = options.targets?.[target as EventTarget];
    if (inCode) {
      await inCode(payload);
      return;
    }
    const handler = loadFunctionHandler(target) as FunctionTarget;
    await handler(payload, lambdaContext(target, randomUUID()));
  }

  function invoke(job: ClaimedJob): Promise<void> {
    return invokeTarget(job.target, JSON.parse(job.input) as Record<string, unknown>);
  }

  // Recurring runs: not kept in the table (the rate is configuration, like the stack's schedules).
  const recurringTimers = Object.entries(options.recurring ?? defaultRecurringRuns).map(([target, everyMs]) => {
    let current: Promise<void> | undefined;
    return setInterval(() => {
      if (stopped || current) return;
      const run = invokeTarget(target as RecurringTarget, {})
        .catch((error: Error) => log(`scheduler: recurring run of ${target} failed: ${error.message}`))
        .finally(() => {
          current = undefined;
          running.delete(run);
        });
      current = run;
      running.add(run);
    }, everyMs);
  });

  /** Keep the job's lease while its target runs; stops once the job was replaced or cancelled. */
  function heartbeat(job: ClaimedJob): () => void {
    const timer = setInterval(() => {
      renewLocalJobLease(job, leaseMs)
        .then((held) => {
          if (!held) clearInterval(timer);
        })
        .catch((error: Error) => log(`scheduler: renewing the lease of job ${job.name} failed: ${error.message}`));
    }, leaseMs / 3);
    return () => clearInterval(timer);
  }

  /** The job's run is over: delete it (a newer job of the same name stays). */
  async function complete(job: ClaimedJob): Promise<void> {
    // Not deleted (DynamoDB down): it fires again when its lease runs out, which the target allows.
    await completeLocalJob(job).catch((error: Error) => log(`scheduler: job ${job.name} ran, but could not be deleted: ${error.message}`));
  }

  async function fail(job: ClaimedJob, reason: string): Promise<void> {
    const attempts = job.attempts + 1;
    if (attempts >= maxAttempts) {
      // Logged once the job is gone, so whoever reads the line can rely on it.
      await complete(job);
      log(`scheduler: job ${job.name} (${job.target}) failed ${attempts} time(s) and is given up: ${reason}`);
      return;
    }
    // Kept in the table, so the retry survives a restart like any other job.
    const retryAt = new Date(Date.now() + retryDelayMs * 2 ** (attempts - 1));
    let outcome = `retrying at ${retryAt.toISOString()}`;
    try {
      if (!(await retryLocalJob(job, retryAt))) outcome = 'a newer job of that name replaced it';
    } catch (retryError) {
      outcome = `it could not be put back (it fires again when its lease ends): ${(retryError as Error).message}`;
    }
    log(`scheduler: job ${job.name} (${job.target}) failed (attempt ${attempts} of ${maxAttempts}): ${reason}; ${outcome}`);
  }

  // A job fires again after a crash (the lease outlives the run it covered). That is safe for every
  // target: the dispatcher continues from its stored cursor and claims each recipient in the ledger
  // before mailing; the step runner mails through the same ledger and changes an enrolment only if it
  // is still the version it read.
  async function fire(job: ClaimedJob): Promise<void> {
    if (job.attempts >= maxAttempts) {
      // Its earlier runs were all cut short by killed processes.
      await complete(job);
      log(`scheduler: job ${job.name} (${job.target}) was started ${job.attempts} time(s) without finishing and is given up`);
      return;
    }
    const stopHeartbeat = heartbeat(job);
    try {
      await invoke(job);
    } catch (error) {
      stopHeartbeat();
      await fail(job, (error as Error).message);
      return;
    }
    stopHeartbeat();
    await complete(job);
  }

  // Before the first poll, so a job left running by a killed stack fires again at once.
  const released = (options.releaseLeasesAtStart ?? true)
    ? releaseLocalJobLeases(leaseMs)
        .then((count) => {
          if (count > 0) log(`scheduler: ${count} job(s) left running by a stopped process are due again`);
        })
        .catch((error: Error) => log(`scheduler: releasing the jobs of a stopped process failed (they fire when their lease ends): ${error.message}`))
    : Promise.resolve();

  async function pollOnce(): Promise<void> {
    await released;
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
      const job = await claimLocalJob(entry, leaseMs).catch((error: Error) => {
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

  // A job stored due at once (startNow: a send made now) is polled for then, not at the next tick. A
  // poll under way may have queried before the job was stored: then one more follows it.
  let pollAgain = false;
  function pollSoon(): void {
    if (stopped) return;
    if (polling) {
      if (pollAgain) return;
      pollAgain = true;
      void polling.finally(() => {
        pollAgain = false;
        if (!stopped) void poll();
      });
      return;
    }
    void poll();
  }
  const stopHearing = onLocalJobDueNow(pollSoon);

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
      stopHearing();
      if (timer) clearTimeout(timer);
      recurringTimers.forEach((recurringTimer) => clearInterval(recurringTimer));
      await polling;
      await Promise.allSettled([...running]);
    },
  };
}
