// Automation enrolments: every table access for them and for the step runner's state. One item per
// automation and contact (so a contact is enrolled at most once), in one of 16 shards of the
// automation's enrolment partition (keys.ts); an active enrolment carries gsi1 keys in the due index
// (hour bucket + shard partition, due time first in the sort key). Enrolments stored before the
// shards stay where they are: each change goes to the item where it was read, and readers of a whole
// automation read that old partition beside the shards.
import { PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dueShards, hourBucket, indexTime, shardOf } from './buckets';
import { currentTime, isoTimestamp } from '../time';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { db, tableName } from '../table/client';
import { inParallel } from '../table/concurrency';
import {
  AUTOMATION_ENROLMENT,
  automationDueBound,
  automationDueHourKey,
  automationDuePartition,
  automationDueSortKey,
  automationEnrolmentKey,
  automationEnrolmentPartition,
  automationEnrolmentShardPartitions,
  automationKey,
  automationRunnerStateKey,
  legacyEnrolmentKey,
} from './keys';
import type { Key } from '../table/keys';
import { batchGetAll } from '../table/batch';
import { getItem, isConditionFailure, queryAll, queryPage, queryPageAfter, type Item } from '../table/records';
import { ShardMerge, pageReadSize } from '../table/shard-merge';
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
  /** The item's key as read: a shard's, or the unsharded partition's for an enrolment stored before. */
  key: Key;
}

/** A contact joining an automation's target. */
export interface Joiner {
  contactId: number;
  email: string;
}

const writeConcurrency = 16;

/** `automationStatus.live` (repository.ts imports this module, so the value is not imported back). */
const liveStatus = 1;

/** Hours this container has marked as used in the due index: each is written once per container. */
const markedHours = new Set<string>();

/**
 * Mark an hour as used in the due index before anything is indexed in it, so the runner reads its
 * shards. Marks are a few bytes, one per hour used (under 9,000 a year), read by range: they stay.
 */
async function markDueHour(hour: string): Promise<void> {
  if (markedHours.has(hour)) return;
  await db().send(new PutCommand({ TableName: tableName(), Item: automationDueHourKey(hour) }));
  markedHours.add(hour);
}

/** The due-index keys of an enrolment, its hour marked first. */
async function dueIndexKey(accountId: number, automationUtr: string, contactId: number, dueAt: Date, now: Date): Promise<{ gsi1pk: string; gsi1sk: string }> {
  const at = indexTime(dueAt, now);
  await markDueHour(hourBucket(at));
  return { gsi1pk: automationDuePartition(hourBucket(at), shardOf(contactId)), gsi1sk: automationDueSortKey(at, accountId, automationUtr, contactId) };
}

/**
 * The hours between `first` and `last` (both included) that some enrolment was indexed in: one Query.
 * An hour without a mark may still hold enrolments indexed before hours were marked, in its first 4 shards.
 */
export async function markedDueHours(first: string, last: string): Promise<Set<string>> {
  return new Set((await queryAll({ partition: automationDueHourKey(first).pk, between: [first, last] })).map((item) => String(item.sk)));
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
    key: { pk: String(item.pk), sk: String(item.sk) },
  };
}

/** Every partition an automation's enrolments may be in: its shards, and where they were stored before. */
function enrolmentPartitions(accountId: number, automationUtr: string): string[] {
  return [...automationEnrolmentShardPartitions(accountId, automationUtr), automationEnrolmentPartition(accountId, automationUtr)];
}

/**
 * The contacts among these already enrolled in the automation's unsharded partition (stored before
 * the shards). One Query of one item first says whether that partition holds any: it is read on every
 * call, not remembered, because while a stage is upgraded the previous version still enrols there.
 */
async function enrolledBefore(accountId: number, automationUtr: string, contactIds: readonly number[]): Promise<Set<number>> {
  const probe = await queryPage({ partition: automationEnrolmentPartition(accountId, automationUtr), limit: 1 });
  if (probe.items.length === 0) return new Set();
  const items = await batchGetAll(contactIds.map((id) => legacyEnrolmentKey(accountId, automationUtr, id)), { consistentRead: true });
  return new Set(items.map((item) => Number(item.contact_id)));
}

/**
 * Enrol contacts whose first step falls due at `dueAt`; a contact already enrolled (now or ever) is
 * left as it is. Answers the number of new enrolments.
 */
export async function enrolContacts(accountId: number, automationUtr: string, joiners: readonly Joiner[], dueAt: Date): Promise<number> {
  const now = currentTime();
  let created = 0;
  const before = await enrolledBefore(accountId, automationUtr, [...new Set(joiners.map((joiner) => joiner.contactId))]);
  await inParallel(joiners.filter((joiner) => !before.has(joiner.contactId)), writeConcurrency, async (joiner) => {
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...automationEnrolmentKey(accountId, automationUtr, joiner.contactId),
            ...(await dueIndexKey(accountId, automationUtr, joiner.contactId, dueAt, now)),
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
  const item = (await getItem(automationEnrolmentKey(accountId, automationUtr, contactId))) ?? (await getItem(legacyEnrolmentKey(accountId, automationUtr, contactId)));
  return item ? toEnrolment(item) : undefined;
}

/** Every enrolment of an automation, in contact id order. */
export async function listEnrolments(accountId: number, automationUtr: string): Promise<Enrolment[]> {
  const items = (await Promise.all(enrolmentPartitions(accountId, automationUtr).map((partition) => queryAll({ partition })))).flat();
  return items.map(toEnrolment).sort((a, b) => a.contactId - b.contactId);
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

/** The shards of a marked hour bucket, for the runner's loop. */
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
        Key: enrolment.key,
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
export async function advanceEnrolment(enrolment: Enrolment, sentStepId: number, nextDueAt: Date): Promise<boolean> {
  const index = await dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, nextDueAt, currentTime());
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
export async function keepDue(enrolment: Enrolment): Promise<boolean> {
  const index = await dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, enrolment.dueAt, currentTime());
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
              Key: enrolment.key,
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
  const partitions = enrolmentPartitions(accountId, automationUtr);
  // The shards and the old partition merged in contact id order, so `after` resumes a whole pass.
  const merge = new ShardMerge<Item>(
    partitions.length,
    (item) => String(item.sk),
    async (shard, from, size) => {
      const page = await queryPageAfter({ partition: partitions[shard] as string, after: from, limit: size });
      return { items: page.items, more: page.next !== undefined };
    },
    after ?? undefined,
  );
  const page = { items: await merge.take(limit, pageReadSize) };
  const parked = page.items.map(toEnrolment).filter((enrolment) => enrolment.state === 'parked');
  const now = currentTime();
  let resumed = 0;
  await inParallel(parked, writeConcurrency, async (enrolment) => {
    const index = await dueIndexKey(accountId, automationUtr, enrolment.contactId, enrolment.dueAt, now);
    if (await conditionalUpdate(enrolment, 'SET #state = :active, gsi1pk = :gpk, gsi1sk = :gsk', { ':active': 'active', ':gpk': index.gsi1pk, ':gsk': index.gsi1sk })) resumed++;
  });
  const last = page.items.at(-1);
  return { read: page.items.length, resumed, last: page.items.length < limit || last === undefined ? null : String(last.sk) };
}

/** Delete every enrolment of an automation (the automation is being deleted), 25 per BatchWriteItem. */
export async function deleteEnrolments(accountId: number, automationUtr: string): Promise<number> {
  let deleted = 0;
  for (const partition of enrolmentPartitions(accountId, automationUtr)) {
    const items = await queryAll({ partition });
    await batchWriteAll(items.map(deleteRequest), { concurrency: writeConcurrency });
    deleted += items.length;
  }
  return deleted;
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
