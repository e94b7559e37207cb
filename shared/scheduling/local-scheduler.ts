// The scheduler port on the laptop: each job is an item in the table, indexed on gsi1 by due time so
// the poller (infra/local/scheduler-poller.ts) finds every due job with one Query. A job is taken by
// leasing it, not by deleting it: it stays in the table until its target has returned, so a process
// killed in the middle of a run loses nothing.
import { randomUUID } from 'node:crypto';
import { standIn } from '../aws-call-watch';
import { conditionHeld, deleteItem, putItem, query, unlessConditionFails, updateItem } from '../table/records';
import { SCHEDULE_PARTITION, scheduledJobDueKey, scheduledJobKey, scheduledJobsDueBound } from './keys';
import { scheduleInput, type EventTarget, type ScheduledJob, type SchedulerAdapter } from './scheduled-job';

/** A due job as the index lists it; `dueKey` identifies this version of the job for the claim. */
export interface DueJob {
  name: string;
  dueKey: string;
}

/** A job taken for a run: `lease` identifies this run; only its holder can renew, retry or complete it. */
export interface ClaimedJob {
  name: string;
  target: EventTarget;
  /** The payload's JSON text, as EventBridge delivers it. */
  input: string;
  at: Date;
  /** Runs started before this one (each claim counts one, a run cut short by a killed process too). */
  attempts: number;
  lease: string;
}

/** How long a claimed job stays hidden from the pollers unless its holder renews the lease. */
export const defaultLeaseMs = 120_000;

// Leases taken by this process. Another process's lease on the table is one a killed stack left.
const processOwner = `${process.pid}-${randomUUID()}`;

/** Store a job; an existing job of the same name (leased or not) is replaced, like UpdateSchedule. */
export async function putLocalJob(job: ScheduledJob): Promise<void> {
  const item = {
    ...scheduledJobKey(job.name),
    ...scheduledJobDueKey(job.at, job.name),
    name: job.name,
    target: job.target,
    input: scheduleInput(job),
    due_at: job.at.toISOString(),
    attempts: 0,
  };
  await putItem({ Item: item });
}

/** Called when a job due at once is stored: the local poller polls then, not at its next tick. */
const dueNowListeners = new Set<() => void>();

/** Hear of each job stored due at once (infra/local/scheduler-poller.ts); returns a function that stops it. */
export function onLocalJobDueNow(listener: () => void): () => void {
  dueNowListeners.add(listener);
  return () => dueNowListeners.delete(listener);
}

/**
 * Store a job due now and wake the pollers: the local side of `startNow` (shared/scheduling/start-now.ts).
 * It is a job like any other until it has run, so a process killed before its run loses nothing.
 */
async function putLocalJobDueNow(job: Omit<ScheduledJob, 'at'>): Promise<void> {
  await putLocalJob({ ...job, at: new Date() });
  for (const listener of dueNowListeners) listener();
}

export async function deleteLocalJob(name: string): Promise<void> {
  await deleteItem({ Key: scheduledJobKey(name) });
}

/** Jobs due at or before `now` (leases that ran out included), oldest first, from one Query on gsi1. */
export async function dueLocalJobs(now: Date, limit = 50): Promise<DueJob[]> {
  const result = await query({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :bound',
    ExpressionAttributeValues: { ':partition': SCHEDULE_PARTITION, ':bound': scheduledJobsDueBound(now) },
    ProjectionExpression: '#name, gsi1sk',
    ExpressionAttributeNames: { '#name': 'name' },
    Limit: limit,
  });
  return (result.Items ?? []).map((item) => ({ name: String(item.name), dueKey: String(item.gsi1sk) }));
}

/**
 * Take a due job by leasing it, on condition that it is still the version the index showed: its due
 * time moves to the end of the lease and its attempts go up by one. Only one poller's update can
 * succeed, so a job fires once; a job cancelled or moved meanwhile is not fired. If the holder dies,
 * the job is due again when the lease runs out (or at once, when the next stack releases it).
 */
export async function claimLocalJob(due: DueJob, leaseMs = defaultLeaseMs): Promise<ClaimedJob | undefined> {
  const lease = randomUUID();
  const result = await unlessConditionFails(
    updateItem({
      Key: scheduledJobKey(due.name),
      ConditionExpression: 'gsi1sk = :dueKey',
      UpdateExpression: 'SET gsi1sk = :leaseKey, lease_id = :lease, leased_by = :owner, attempts = if_not_exists(attempts, :zero) + :one',
      ExpressionAttributeValues: {
        ':dueKey': due.dueKey,
        ':leaseKey': scheduledJobDueKey(new Date(Date.now() + leaseMs), due.name).gsi1sk,
        ':lease': lease,
        ':owner': processOwner,
        ':zero': 0,
        ':one': 1,
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  const item = result?.Attributes;
  if (!item) return undefined;
  return {
    name: String(item.name),
    target: item.target as EventTarget,
    input: String(item.input),
    at: new Date(String(item.due_at)),
    attempts: Number(item.attempts ?? 0),
    lease,
  };
}

/** The job, on condition that this lease still holds it (a newer job of the same name may have replaced it). */
const leaseHeld = (job: Pick<ClaimedJob, 'name' | 'lease'>) => ({
  Key: scheduledJobKey(job.name),
  ConditionExpression: 'lease_id = :lease',
});

/** Keep a running job hidden for another `leaseMs`; false when it was replaced or cancelled meanwhile. */
export function renewLocalJobLease(job: ClaimedJob, leaseMs = defaultLeaseMs): Promise<boolean> {
  return conditionHeld(
    updateItem({
      ...leaseHeld(job),
      UpdateExpression: 'SET gsi1sk = :leaseKey',
      ExpressionAttributeValues: { ':lease': job.lease, ':leaseKey': scheduledJobDueKey(new Date(Date.now() + leaseMs), job.name).gsi1sk },
    }),
  );
}

/**
 * The run is over (it succeeded, or the job is given up): delete the job, unless a newer job of the
 * same name took its place meanwhile (a run that booked its own next run), which stays.
 */
export function completeLocalJob(job: ClaimedJob): Promise<boolean> {
  return conditionHeld(deleteItem({ ...leaseHeld(job), ExpressionAttributeValues: { ':lease': job.lease } }));
}

/** The run failed: the job is due again at `at`, keeping its attempts; false when a newer job replaced it. */
export function retryLocalJob(job: ClaimedJob, at: Date): Promise<boolean> {
  return conditionHeld(
    updateItem({
      ...leaseHeld(job),
      UpdateExpression: 'SET gsi1sk = :dueKey, due_at = :at REMOVE lease_id, leased_by',
      ExpressionAttributeValues: { ':lease': job.lease, ':dueKey': scheduledJobDueKey(at, job.name).gsi1sk, ':at': at.toISOString() },
    }),
  );
}

/**
 * Make the jobs leased by another process due now: call it only where that process is known to be
 * gone (one stack runs per DATA_DIR, so a lease a new stack finds was left by a killed one). A lease
 * never reaches further than `leaseMs` ahead, so one Query up to there finds them all. Returns how many.
 */
export async function releaseLocalJobLeases(leaseMs = defaultLeaseMs): Promise<number> {
  const now = new Date();
  let released = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await query({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :bound',
      FilterExpression: 'attribute_exists(lease_id) AND leased_by <> :owner',
      ExpressionAttributeValues: { ':partition': SCHEDULE_PARTITION, ':bound': scheduledJobsDueBound(new Date(now.getTime() + leaseMs)), ':owner': processOwner },
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      const job = { name: String(item.name), lease: String(item.lease_id) };
      const dueNow = updateItem({
        ...leaseHeld(job),
        UpdateExpression: 'SET gsi1sk = :dueKey REMOVE lease_id, leased_by',
        ExpressionAttributeValues: { ':lease': job.lease, ':dueKey': scheduledJobDueKey(now, job.name).gsi1sk },
      });
      if (await conditionHeld(dueNow)) released++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return released;
}

const tableScheduler: SchedulerAdapter = {
  scheduleAt: putLocalJob,
  cancel: deleteLocalJob,
};

/**
 * The calls EventBridge Scheduler would get (shared/scheduling/aws-scheduler.ts), for a test that
 * watches them: a job is created, or updated when its name exists already; a cancel deletes it.
 */
function reportedScheduler(adapter: SchedulerAdapter): SchedulerAdapter {
  return {
    scheduleAt: (job) =>
      standIn({ service: 'scheduler', operation: 'CreateSchedule', input: { Name: job.name, Target: job.target } }, () =>
        standIn({ service: 'scheduler', operation: 'UpdateSchedule', input: { Name: job.name, Target: job.target } }, () => adapter.scheduleAt(job)),
      ),
    cancel: (name) => standIn({ service: 'scheduler', operation: 'DeleteSchedule', input: { Name: name } }, () => adapter.cancel(name)),
  };
}

/** `startNow` locally, reported as the asynchronous invoke of the target it stands for (aws-start-now.ts). */
export function startLocalJobNow(job: Omit<ScheduledJob, 'at'>): Promise<void> {
  if (process.env.LAMBDA_BUNDLE === 'true') return putLocalJobDueNow(job);
  return standIn({ service: 'lambda', operation: 'Invoke', input: { Target: job.target, InvocationType: 'Event' } }, () => putLocalJobDueNow(job));
}

// A Lambda bundle keeps only the table adapter (see shared/aws-call-watch.ts).
export const localScheduler: SchedulerAdapter = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedScheduler(tableScheduler) : tableScheduler;
