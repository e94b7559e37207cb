// The scheduler port's vocabulary: what a one-time job is, which functions it can fire, and the
// limits EventBridge Scheduler puts on both, checked here so the local adapter refuses what AWS would.

/** The event functions a schedule can fire: `functions/<target>/handler.ts`. */
export const eventTargets = ['send-dispatch', 'automation-steps', 'send-watchdog', 'segment-windows', 'opt-in-mail'] as const;

export type EventTarget = (typeof eventTargets)[number];

/**
 * Minutes between two runs of the send watchdog: a recurring schedule when deployed, a recurring run of
 * the local scheduler on the laptop. A stalled send is found at most this long after its threshold.
 */
export const sendWatchdogIntervalMinutes = 5;

export interface ScheduledJob {
  /** Unique per job; scheduling the same name again replaces the job. */
  name: string;
  /** When the target fires (second precision, UTC). */
  at: Date;
  target: EventTarget;
  /** Delivered to the target's handler as its event, after a JSON round trip. */
  payload: Record<string, unknown>;
}

export interface SchedulerAdapter {
  scheduleAt(job: ScheduledJob): Promise<void>;
  cancel(name: string): Promise<void>;
}

// EventBridge Scheduler: names are 1-64 of [0-9a-zA-Z-_.], a target's Input is at most 8192 characters.
const namePattern = /^[0-9a-zA-Z\-_.]{1,64}$/;
const maxInputLength = 8192;

export function assertScheduleName(name: string): void {
  if (!namePattern.test(name)) {
    throw new Error(`Invalid schedule name '${name}': use 1-64 characters from [0-9a-zA-Z-_.]`);
  }
}

/** The job's payload as the JSON text the target receives; throws when EventBridge would refuse it. */
export function scheduleInput(job: ScheduledJob): string {
  const input = JSON.stringify(job.payload);
  if (input.length > maxInputLength) {
    throw new Error(`Schedule '${job.name}' payload is ${input.length} characters; the limit is ${maxInputLength}`);
  }
  return input;
}

export function assertValidJob(job: ScheduledJob): void {
  assertScheduleName(job.name);
  if (Number.isNaN(job.at.getTime())) throw new Error(`Schedule '${job.name}' has an invalid time`);
  if (!eventTargets.includes(job.target)) throw new Error(`Schedule '${job.name}' has an unknown target '${job.target}'`);
  scheduleInput(job);
}
