// The `suppression-state-backfill` job: an account older than the per-address suppression state gets
// the state of every list entry it already had; its last step marks the state complete. Started by
// the first single send dispatched, or step run, that finds the account's state incomplete.
import { describeError, log } from '../log';
import { getJobState, isFinished } from '../jobs/repository';
import { RecordNotFound } from '../table/errors';
import { backfillStart, backfillStatePage, buildingMarkerPut, markStateComplete, stateMarker, type StateMarker } from '../suppressions/state';
import { JobNotStarted, startJob, type JobOutcome, type JobRun } from './job-queue';

const writing = 'Writing the suppression state of every address on the account\u2019s lists.';

/** Whether the marker's backfill job is still to run or running (a finished one that left the state incomplete, or one expired, is not). */
async function backfillUnderWay(accountId: number, marker: StateMarker): Promise<boolean> {
  if (marker.status !== 'building') return false;
  try {
    return !isFinished(await getJobState(accountId, marker.jobId));
  } catch (error) {
    if (error instanceof RecordNotFound) return false;
    throw error;
  }
}

/**
 * Start the backfill unless one is under way: the job is created in one transaction with the marker
 * naming it, conditioned on the marker read, so of two starters meeting only one starts a job.
 */
async function startBackfill(accountId: number, marker: StateMarker): Promise<void> {
  if (await backfillUnderWay(accountId, marker)) return;
  const replacing = marker.status === 'building' ? marker.jobId : undefined;
  try {
    const jobId = await startJob(accountId, { kind: 'suppression-state-backfill', target: accountId, message: writing }, (id) => Promise.resolve([buildingMarkerPut(accountId, id, replacing)]));
    log.info('suppression state backfill started', { accountId, jobId });
  } catch (error) {
    // Another starter was first: its job does the work.
    if (!(error instanceof JobNotStarted)) throw error;
  }
}

/**
 * Whether every address of the account has its suppression state (a send may then read it alone).
 * When not, the backfill is started once; a failure to start it is logged, never fails the caller,
 * which reads the lists as before (the next send or run starts it).
 */
export async function suppressionStateReady(accountId: number): Promise<boolean> {
  const marker = await stateMarker(accountId);
  if (marker.status === 'complete') return true;
  try {
    await startBackfill(accountId, marker);
  } catch (error) {
    log.error('suppression state backfill not started', { accountId, ...describeError(error) });
  }
  return false;
}

/** The job: the global list, each group, the bounces, a page at a time from its cursor; then the marker. */
export async function runSuppressionStateBackfillJob(run: JobRun): Promise<JobOutcome> {
  let position = run.job.cursor ?? backfillStart;
  // `done`: every list written; a run stopped before the marker was set sets it.
  while (position.phase !== 'done') {
    if (!run.keepGoing()) return { status: 'paused' };
    const { written, next } = await backfillStatePage(run.accountId, position);
    position = next ?? { phase: 'done', after: null };
    if (!(await run.checkpoint(written, position, writing))) return { status: 'superseded', message: 'Another run of the job finished it.' };
  }
  await markStateComplete(run.accountId);
  return { status: 'completed', message: 'Every address on the account\u2019s lists has its suppression state; sends read it alone.' };
}
