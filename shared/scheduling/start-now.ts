// Fire a job's target at once, for a job no schedule of the same name can be holding (a send made
// now: its name is new). A port of its own beside scheduler.ts, so that only the code that starts
// work at once carries the Lambda client.
//
// Why not a schedule due now: EventBridge Scheduler fires one-time schedules with one-minute
// precision, and an `at()` already past is no reliable "now" (aws-scheduler.ts sets such a job 5 s
// ahead), so a send made now waited 5 to 65 s for its dispatch. Deployed, the target is invoked
// asynchronously instead (aws-start-now.ts); locally the job is stored due now and the poller is
// woken (local-scheduler.ts). A job started so cannot be cancelled or moved: call this only where
// that is the intent, and where no earlier schedule of the name may fire later with an older payload.
import { config } from '../config';
import { startAwsJobNow } from './aws-start-now';
import { startLocalJobNow } from './local-scheduler';
import { assertValidJob, type ScheduledJob } from './scheduled-job';

export async function startNow(job: Omit<ScheduledJob, 'at'>): Promise<void> {
  assertValidJob({ ...job, at: new Date() });
  // Spelled as in scheduler.ts, so a Lambda bundle's build (LAMBDA_BUNDLE defined "true") drops the local adapter.
  if (process.env.LAMBDA_BUNDLE !== 'true' && config().runtime === 'local') await startLocalJobNow(job);
  else await startAwsJobNow(job);
}
