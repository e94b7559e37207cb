// The scheduler port on the laptop: each job is an item in the table, indexed on gsi1 by due time so
// the poller (infra/local/scheduler-poller.ts) finds every due job with one Query and nothing is
// lost when the process restarts.
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../table/client';
import { SCHEDULE_PARTITION, scheduledJobDueKey, scheduledJobKey, scheduledJobsDueBound } from './keys';
import { scheduleInput, type EventTarget, type ScheduledJob, type SchedulerAdapter } from './scheduled-job';

/** A due job as the index lists it; `dueKey` identifies this version of the job for the claim. */
export interface DueJob {
  name: string;
  dueKey: string;
}

/** A stored job. `input` is the payload's JSON text, as EventBridge delivers it; `attempts` failed so far. */
export interface ClaimedJob {
  name: string;
  target: EventTarget;
  input: string;
  at: Date;
  attempts: number;
}

function jobItem(job: ClaimedJob) {
  return {
    ...scheduledJobKey(job.name),
    ...scheduledJobDueKey(job.at, job.name),
    name: job.name,
    target: job.target,
    input: job.input,
    due_at: job.at.toISOString(),
    attempts: job.attempts,
  };
}

/** Store a job; an existing job of the same name is replaced, like UpdateSchedule. */
export async function putLocalJob(job: ScheduledJob): Promise<void> {
  const item = jobItem({ name: job.name, target: job.target, input: scheduleInput(job), at: job.at, attempts: 0 });
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** Put a failed job back for another attempt, unless a newer job of the same name took its place. */
export async function requeueLocalJob(job: ClaimedJob): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: jobItem(job),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

export async function deleteLocalJob(name: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: scheduledJobKey(name) }));
}

/** Jobs due at or before `now`, oldest first, from one Query on gsi1. */
export async function dueLocalJobs(now: Date, limit = 50): Promise<DueJob[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :bound',
      ExpressionAttributeValues: { ':partition': SCHEDULE_PARTITION, ':bound': scheduledJobsDueBound(now) },
      ProjectionExpression: '#name, gsi1sk',
      ExpressionAttributeNames: { '#name': 'name' },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => ({ name: String(item.name), dueKey: String(item.gsi1sk) }));
}

/**
 * Take a due job by deleting it, on condition that it is still the version the index showed. Only one
 * poller's delete can succeed, so a job fires once; a job cancelled or moved meanwhile is not fired.
 */
export async function claimLocalJob(due: DueJob): Promise<ClaimedJob | undefined> {
  try {
    const result = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: scheduledJobKey(due.name),
        ConditionExpression: 'gsi1sk = :dueKey',
        ExpressionAttributeValues: { ':dueKey': due.dueKey },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const item = result.Attributes;
    if (!item) return undefined;
    return {
      name: String(item.name),
      target: item.target as EventTarget,
      input: String(item.input),
      at: new Date(String(item.due_at)),
      attempts: Number(item.attempts ?? 0),
    };
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

export const localScheduler: SchedulerAdapter = {
  scheduleAt: putLocalJob,
  cancel: deleteLocalJob,
};
