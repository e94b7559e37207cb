// Segments as the API changes them: saving or updating rules starts a background rebuild (the contacts
// that start to match enrol in the segment's live automations, page by page), and deleting one starts
// a background purge of its recipients. Both jobs answer for their progress in `jobs`.
import { onSegmentsJoined } from '../automation-runs/enrolment-service';
import { JobNotStarted, startJob, type JobOutcome, type JobRun } from '../background-jobs/job-queue';
import { RecordNotFound } from '../table/errors';
import { SEGMENT } from '../segments/keys';
import { runSegmentRebuild } from './segment-rebuild';
import { bookWindowSlide } from './engagement-windows';
import { describeError, log } from '../log';
import { deleteExclusionsPage } from '../segments/exclusions';
import { deleteSegmentRecipientsPage } from '../segments/recipients';
import { newSegmentPut, segmentDeletion, segmentRulesUpdate, type SegmentInput } from '../segments/repository';

const rebuilding = 'Waiting to work out the segment\u2019s recipients.';

/** Store a new segment and start building its membership; answers its id. */
export async function saveSegment(accountId: number, input: SegmentInput): Promise<number> {
  const { segment, writes } = await newSegmentPut(accountId, input);
  await startJob(accountId, { kind: 'segment-rebuild', target: segment.id, version: segment.rules_version, message: rebuilding }, writes);
  await keepWindowsSliding(accountId);
  return segment.id;
}

/** A segment with an `in last days` window needs the account's daily slide booked; a failure is logged (the next save books it). */
async function keepWindowsSliding(accountId: number): Promise<void> {
  try {
    await bookWindowSlide(accountId);
  } catch (error) {
    log.error('engagement window slide not booked', { accountId, ...describeError(error) });
  }
}

/** Replace a segment's rules and start rebuilding its membership; RecordNotFound when it does not exist. */
export async function updateSegmentRules(accountId: number, id: number, input: SegmentInput): Promise<void> {
  const { rulesVersion, changes } = segmentRulesUpdate(accountId, id, input);
  try {
    await startJob(accountId, { kind: 'segment-rebuild', target: id, version: rulesVersion, message: rebuilding }, changes);
  } catch (error) {
    if (error instanceof JobNotStarted) throw new RecordNotFound(SEGMENT, id);
    throw error;
  }
  await keepWindowsSliding(accountId);
}

/** Delete a segment (at once, for clients) and start purging its recipients; RecordNotFound when it does not exist. */
export async function deleteSegment(accountId: number, id: number): Promise<void> {
  try {
    await startJob(accountId, { kind: 'segment-purge', target: id, message: 'Waiting to delete the segment\u2019s recipients.' }, segmentDeletion(accountId, id));
  } catch (error) {
    if (error instanceof JobNotStarted) throw new RecordNotFound(SEGMENT, id);
    throw error;
  }
}

/** The `segment-rebuild` job. */
export function runSegmentRebuildJob(run: JobRun): Promise<JobOutcome> {
  return runSegmentRebuild(run, (join) => onSegmentsJoined(run.accountId, [join]));
}

/** The `segment-purge` job: the deleted segment's recipients, then its exclusions, a page at a time (its counters expire on their own). */
export async function runSegmentPurgeJob(run: JobRun): Promise<JobOutcome> {
  const segmentId = Number(run.job.target);
  for (;;) {
    if (!run.keepGoing()) return { status: 'paused' };
    const deleted = (await deleteSegmentRecipientsPage(run.accountId, segmentId)) || (await deleteExclusionsPage(run.accountId, segmentId));
    if (deleted === 0) break;
    await run.checkpoint(deleted, { phase: 'recipients', after: null }, 'Deleting the segment\u2019s recipients.');
  }
  return { status: 'completed', message: 'The segment and its recipients are deleted.' };
}
