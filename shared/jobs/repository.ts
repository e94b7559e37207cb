// Background jobs: the work an API request starts and a queue consumer finishes (a contact type's
// cascade delete, a segment rebuild or purge, an automation's enrolment at set-live, a bulk upsert). Each job item
// holds its state, its progress and the cursor it resumes from; every table access for it is here.
import { currentTime, isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { conditionHeld, getItem, unlessConditionFails, updateItem, withoutKeys, type Item } from '../table/records';
import type { TransactionAction } from '../table/transactions';
import { JOB, jobKey, jobPartition } from './keys';

export type JobKind = 'contact-type-delete' | 'segment-rebuild' | 'segment-purge' | 'automation-enrol' | 'single-send-link-purge' | 'contact-upsert' | 'segment-window-slide' | 'suppression-state-backfill';

/**
 * `superseded`: the job stopped because what it worked for changed under it (the segment was saved
 * again, the automation paused or deleted); the newer state's own job, if any, carries on.
 */
export type JobStatus = 'queued' | 'running' | 'completed' | 'superseded' | 'failed';

/** Where a job resumes: a phase and a position in it (both the runner's to interpret). */
export interface JobCursor {
  phase: string;
  after: string | number | null;
}

/** A job as `jobs` and `jobs/details` show it. */
export interface Job {
  id: number;
  kind: JobKind;
  /** What the job works on: a contact type id, a segment id, an automation utr. */
  target: string;
  status: JobStatus;
  /** Items handled so far (contacts deleted, contacts evaluated, recipients purged, members enrolled). */
  processed: number;
  /** What the job is doing now, or how it ended, in one sentence. */
  message: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** The job with its working state. */
export interface JobState extends Job {
  cursor: JobCursor | null;
  /** A value the job was started with and checks against (a segment's rules version). */
  version: string | null;
}

/** Finished jobs are kept this long, then DynamoDB's TTL removes them. */
const retentionSeconds = 7 * 24 * 60 * 60;

const finished: readonly JobStatus[] = ['completed', 'superseded', 'failed'];

export function isFinished(job: Pick<Job, 'status'>): boolean {
  return finished.includes(job.status);
}

function toState(item: Item): JobState {
  const record = withoutKeys<JobState>(item);
  return {
    id: Number(record.id),
    kind: record.kind,
    target: String(record.target),
    status: record.status,
    processed: Number(record.processed ?? 0),
    message: String(record.message ?? ''),
    created_at: record.created_at,
    updated_at: record.updated_at,
    finished_at: record.finished_at ?? null,
    cursor: (record.cursor as JobCursor | undefined) ?? null,
    version: record.version ?? null,
  };
}

export function toJob(state: JobState): Job {
  const { cursor: _cursor, version: _version, ...job } = state;
  return job;
}

export interface NewJob {
  kind: JobKind;
  target: string | number;
  message: string;
  version?: string;
}

/** A new job id and the Put that creates it (queued), for a transaction with the change that needs it. */
export async function newJobPut(accountId: number, job: NewJob): Promise<{ id: number; put: TransactionAction }> {
  const id = await nextId(accountId, JOB);
  const now = isoTimestamp();
  const item = {
    ...jobKey(accountId, id),
    entity: JOB,
    id,
    user_id: accountId,
    kind: job.kind,
    target: String(job.target),
    status: 'queued',
    processed: 0,
    message: job.message,
    version: job.version ?? null,
    cursor: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  return { id, put: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
}

export async function getJobState(accountId: number, id: number): Promise<JobState> {
  const item = await getItem(jobKey(accountId, id));
  if (!item) throw new RecordNotFound(JOB, id);
  return toState(item);
}

/** One page of the account's jobs, newest first. */
export async function listJobsPage(accountId: number, page: PageRequest): Promise<ListPage<Job>> {
  return mapPage(await queryListPage({ partition: jobPartition(accountId), descending: true }, page), (item) => toJob(toState(item)));
}

/**
 * Record progress: `processed` grows by `more`, the cursor moves, the status becomes running. Refused
 * (false) once the job has finished, so a stale run never reopens it.
 */
export async function recordProgress(accountId: number, id: number, more: number, cursor: JobCursor, message: string): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: jobKey(accountId, id),
      UpdateExpression: 'SET #status = :running, #cursor = :cursor, #message = :message, updated_at = :now ADD #processed :more',
      ConditionExpression: 'attribute_exists(pk) AND #status IN (:queued, :running)',
      ExpressionAttributeNames: { '#status': 'status', '#cursor': 'cursor', '#message': 'message', '#processed': 'processed' },
      ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':cursor': cursor, ':message': message, ':now': isoTimestamp(), ':more': more },
    }),
  );
}

/** End the job with a status and a sentence; a job already finished keeps its first ending. */
export async function finishJob(accountId: number, id: number, status: Exclude<JobStatus, 'queued' | 'running'>, message: string): Promise<void> {
  const now = currentTime();
  await unlessConditionFails(
    updateItem({
      Key: jobKey(accountId, id),
      UpdateExpression: 'SET #status = :status, #message = :message, updated_at = :now, finished_at = :now, expires_at = :expires',
      ConditionExpression: 'attribute_exists(pk) AND #status IN (:queued, :running)',
      ExpressionAttributeNames: { '#status': 'status', '#message': 'message' },
      ExpressionAttributeValues: {
        ':status': status,
        ':message': message,
        ':now': isoTimestamp(now),
        ':expires': Math.floor(now.getTime() / 1000) + retentionSeconds,
        ':queued': 'queued',
        ':running': 'running',
      },
    }),
  );
}
