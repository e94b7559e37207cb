// Automation enrolments: every table access for them and for the step runner's state. One item per
// automation and contact (so a contact is enrolled at most once); an active enrolment carries gsi1
// keys in the due index (hour bucket + shard partition, due time first in the sort key).
import { PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dueShards, hourBucket, indexTime, shardOf } from './buckets';
import { currentTime, isoTimestamp } from '../time';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { db, tableName } from '../table/client';
import { inParallel } from '../table/concurrency';
import { AUTOMATION_ENROLMENT, automationDueBound, automationDuePartition, automationDueSortKey, automationEnrolmentKey, automationEnrolmentPartition, automationKey, automationRunnerStateKey } from './keys';
import { getItem, isConditionFailure, queryAll, queryPageAfter, type Item } from '../table/records';
import { isTransactionCancelled } from '../table/transactions';

/** Why an enrolment ended; `parked` is not an end: its automation was not live when it fell due. */
export type EnrolmentState = 'active' | 'parked' | 'completed' | 'contact-deleted' | 'unsubscribed' | 'left-target';

export interface Enrolment {
  accountId: number;
  automationUtr: string;
  contactId: number;
  email: string;
  /** The id of the last step sent (0 before the first): the next step is the first with a higher id. */
  lastStepId: number;
  /** When the next step falls due. */
  dueAt: Date;
  state: EnrolmentState;
  enrolledAt: string;
}

/** A contact joining an automation's target. */
export interface Joiner {
  contactId: number;
  email: string;
}

const writeConcurrency = 16;

/** `automationStatus.live` (repository.ts imports this module, so the value is not imported back). */
const liveStatus = 1;

function dueIndexKey(accountId: number, automationUtr: string, contactId: number, dueAt: Date, now: Date): { gsi1pk: string; gsi1sk: string } {
  const at = indexTime(dueAt, now);
  return { gsi1pk: automationDuePartition(hourBucket(at), shardOf(contactId)), gsi1sk: automationDueSortKey(at, accountId, automationUtr, contactId) };
}

function toEnrolment(item: Item): Enrolment {
  return {
    accountId: Number(item.account_id),
    automationUtr: String(item.automation_utr),
    contactId: Number(item.contact_id),
    email: String(item.email),
    lastStepId: Number(item.last_step_id ?? 0),
    dueAt: new Date(String(item.due_at)),
    state: String(item.state) as EnrolmentState,
    enrolledAt: String(item.enrolled_at),
  };
}

/**
 * Enrol contacts whose first step falls due at `dueAt`; a contact already enrolled (now or ever) is
 * left as it is. Answers the number of new enrolments.
 */
export async function enrolContacts(accountId: number, automationUtr: string, joiners: readonly Joiner[], dueAt: Date): Promise<number> {
  const now = currentTime();
  let created = 0;
  await inParallel(joiners, writeConcurrency, async (joiner) => {
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...automationEnrolmentKey(accountId, automationUtr, joiner.contactId),
            ...dueIndexKey(accountId, automationUtr, joiner.contactId, dueAt, now),
            entity: AUTOMATION_ENROLMENT,
            account_id: accountId,
            automation_utr: automationUtr,
            contact_id: joiner.contactId,
            email: joiner.email,
            last_step_id: 0,
            due_at: dueAt.toISOString(),
            state: 'active',
            enrolled_at: isoTimestamp(now),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      created++;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
  return created;
}

export async function getEnrolment(accountId: number, automationUtr: string, contactId: number): Promise<Enrolment | undefined> {
  const item = await getItem(automationEnrolmentKey(accountId, automationUtr, contactId));
  return item ? toEnrolment(item) : undefined;
}

/** Every enrolment of an automation, in contact id order. */
export async function listEnrolments(accountId: number, automationUtr: string): Promise<Enrolment[]> {
  return (await queryAll({ partition: automationEnrolmentPartition(accountId, automationUtr) })).map(toEnrolment);
}

/** One page of the enrolments due by `now` in one hour and shard, oldest due first. */
export async function dueEnrolmentsPage(
  hour: string,
  shard: number,
  now: Date,
  cursor?: Record<string, unknown>,
  limit = 500,
): Promise<{ enrolments: Enrolment[]; next: Record<string, unknown> | undefined }> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :bound',
      ExpressionAttributeValues: { ':partition': automationDuePartition(hour, shard), ':bound': automationDueBound(now) },
      ExclusiveStartKey: cursor,
      Limit: limit,
    }),
  );
  return { enrolments: (result.Items ?? []).map(toEnrolment), next: result.LastEvaluatedKey };
}

/** The shards of an hour bucket, for the runner's loop. */
export const dueShardNumbers: readonly number[] = Array.from({ length: dueShards }, (_, shard) => shard);

/** Only the version of the enrolment the runner read may change: a concurrent runner's change wins. */
function unchangedCondition(enrolment: Enrolment) {
  return {
    ConditionExpression: 'last_step_id = :last AND #state = :state',
    values: { ':last': enrolment.lastStepId, ':state': enrolment.state },
  };
}

async function conditionalUpdate(enrolment: Enrolment, update: string, values: Record<string, unknown>): Promise<boolean> {
  const condition = unchangedCondition(enrolment);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: automationEnrolmentKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId),
        UpdateExpression: update,
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ...condition.values, ...values },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Record a step as sent and index the next one; false when another run moved the enrolment first. */
export function advanceEnrolment(enrolment: Enrolment, sentStepId: number, nextDueAt: Date): Promise<boolean> {
  const index = dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, nextDueAt, currentTime());
  return conditionalUpdate(enrolment, 'SET last_step_id = :sent, due_at = :due, gsi1pk = :gpk, gsi1sk = :gsk, #state = :active', {
    ':sent': sentStepId,
    ':due': nextDueAt.toISOString(),
    ':gpk': index.gsi1pk,
    ':gsk': index.gsi1sk,
    ':active': 'active',
  });
}

/** End an enrolment (its item stays, so the contact is never enrolled again) and take it out of the due index. */
export function endEnrolment(enrolment: Enrolment, state: Exclude<EnrolmentState, 'active' | 'parked'>, lastStepId = enrolment.lastStepId): Promise<boolean> {
  return conditionalUpdate(enrolment, 'SET #state = :ended, last_step_id = :sent, ended_at = :now REMOVE gsi1pk, gsi1sk', {
    ':ended': state,
    ':sent': lastStepId,
    ':now': isoTimestamp(),
  });
}

/** Leave an enrolment due: index it again at `now`, so the next run retries it. */
export function keepDue(enrolment: Enrolment): Promise<boolean> {
  const index = dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, enrolment.dueAt, currentTime());
  return conditionalUpdate(enrolment, 'SET gsi1pk = :gpk, gsi1sk = :gsk', { ':gpk': index.gsi1pk, ':gsk': index.gsi1sk });
}

/**
 * Take a due enrolment of an automation that is not live out of the due index, in one transaction
 * with a check that the automation is still not live: set-live writes the status before it resumes
 * parked enrolments, so an enrolment is either parked before that (and resumed) or stays due.
 */
export async function parkEnrolment(enrolment: Enrolment): Promise<boolean> {
  const condition = unchangedCondition(enrolment);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: automationKey(enrolment.accountId, enrolment.automationUtr),
              ConditionExpression: 'attribute_exists(pk) AND #status <> :live',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':live': liveStatus },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: automationEnrolmentKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId),
              UpdateExpression: 'SET #state = :parked REMOVE gsi1pk, gsi1sk',
              ConditionExpression: condition.ConditionExpression,
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ...condition.values, ':parked': 'parked' },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isTransactionCancelled(error)) return false;
    throw error;
  }
}

/**
 * Put an automation's parked enrolments back in the due index (set-live; steps overdue meanwhile fall
 * due now): those among the next `limit` of an automation after sort key `after` (null:
 * from the first); answers how many resumed and the last key read (null when none is left after it).
 */
export async function resumeParkedEnrolmentsPage(
  accountId: number,
  automationUtr: string,
  after: string | null,
  limit = 500,
): Promise<{ read: number; resumed: number; last: string | null }> {
  const page = await queryPageAfter({ partition: automationEnrolmentPartition(accountId, automationUtr), after: after ?? undefined, limit });
  const parked = page.items.map(toEnrolment).filter((enrolment) => enrolment.state === 'parked');
  const now = currentTime();
  let resumed = 0;
  await inParallel(parked, writeConcurrency, async (enrolment) => {
    const index = dueIndexKey(accountId, automationUtr, enrolment.contactId, enrolment.dueAt, now);
    if (await conditionalUpdate(enrolment, 'SET #state = :active, gsi1pk = :gpk, gsi1sk = :gsk', { ':active': 'active', ':gpk': index.gsi1pk, ':gsk': index.gsi1sk })) resumed++;
  });
  const last = page.items.at(-1);
  return { read: page.items.length, resumed, last: page.items.length < limit || last === undefined ? null : String(last.sk) };
}

/** Delete every enrolment of an automation (the automation is being deleted), 25 per BatchWriteItem. */
export async function deleteEnrolments(accountId: number, automationUtr: string): Promise<number> {
  const items = await queryAll({ partition: automationEnrolmentPartition(accountId, automationUtr) });
  await batchWriteAll(items.map(deleteRequest), { concurrency: writeConcurrency });
  return items.length;
}

/** The last hour bucket the runner drained completely, if it ever did. */
export async function lastDrainedHour(): Promise<string | undefined> {
  const item = await getItem(automationRunnerStateKey());
  return typeof item?.last_drained_hour === 'string' ? item.last_drained_hour : undefined;
}

export async function rememberDrainedHour(hour: string): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { ...automationRunnerStateKey(), entity: 'automation-runner', last_drained_hour: hour, updated_at: isoTimestamp() } }),
  );
}
