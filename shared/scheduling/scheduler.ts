// The scheduler port: fire an event function once at a given time, or cancel that. The adapter is
// chosen here, and only here, from the runtime (EventBridge Scheduler on AWS, the table locally).
import { config } from '../config';
import { awsScheduler } from './aws-scheduler';
import { localScheduler } from './local-scheduler';
import { assertScheduleName, assertValidJob, type ScheduledJob, type SchedulerAdapter } from './scheduled-job';

export { eventTargets, type EventTarget, type ScheduledJob } from './scheduled-job';

// A Lambda bundle never runs locally: its build drops the local adapter (and the table writes only it makes).
function adapter(): SchedulerAdapter {
  return process.env.LAMBDA_BUNDLE !== 'true' && config().runtime === 'local' ? localScheduler : awsScheduler;
}

/** Fire `job.target` with `job.payload` at `job.at`; the same name again replaces the earlier job. */
export async function scheduleAt(job: ScheduledJob): Promise<void> {
  assertValidJob(job);
  await adapter().scheduleAt(job);
}

/** Cancel a job by name; cancelling a job that already fired or never existed is not an error. */
export async function cancel(name: string): Promise<void> {
  assertScheduleName(name);
  await adapter().cancel(name);
}
