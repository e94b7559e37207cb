// The automation runner's due index: every active enrolment carries gsi1 keys in an hour bucket and
// one of its shards (due time first in the sort key), each hour used is marked so the runner knows to
// read it, and the runner's own state remembers the last hour it drained completely.
import { dueShards, hourBucket, indexTime, shardOf } from './buckets';
import { isoTimestamp } from '../time';
import { automationDueBound, automationDueHourKey, automationDuePartition, automationDueSortKey, automationRunnerStateKey } from './keys';
import { getItem, putItem, query, queryAll } from '../table/records';
import { toEnrolment, type Enrolment } from './enrolment-record';

/** Hours this container has marked as used in the due index: each is written once per container. */
const markedHours = new Set<string>();

/**
 * Mark an hour as used in the due index before anything is indexed in it, so the runner reads its
 * shards. Marks are a few bytes, one per hour used (under 9,000 a year), read by range: they stay.
 */
async function markDueHour(hour: string): Promise<void> {
  if (markedHours.has(hour)) return;
  await putItem({ Item: automationDueHourKey(hour) });
  markedHours.add(hour);
}

/** The due-index keys of an enrolment, its hour marked first. */
export async function dueIndexKey(accountId: number, automationUtr: string, contactId: number, dueAt: Date, now: Date): Promise<{ gsi1pk: string; gsi1sk: string }> {
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

/** One page of the enrolments due by `now` in one hour and shard, oldest due first. */
export async function dueEnrolmentsPage(
  hour: string,
  shard: number,
  now: Date,
  cursor?: Record<string, unknown>,
  limit = 500,
): Promise<{ enrolments: Enrolment[]; next: Record<string, unknown> | undefined }> {
  const result = await query({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :bound',
    ExpressionAttributeValues: { ':partition': automationDuePartition(hour, shard), ':bound': automationDueBound(now) },
    ExclusiveStartKey: cursor,
    Limit: limit,
  });
  return { enrolments: (result.Items ?? []).map(toEnrolment), next: result.LastEvaluatedKey };
}

/** The shards of a marked hour bucket, for the runner's loop. */
export const dueShardNumbers: readonly number[] = Array.from({ length: dueShards }, (_, shard) => shard);


/** The last hour bucket the runner drained completely, if it ever did. */
export async function lastDrainedHour(): Promise<string | undefined> {
  const item = await getItem(automationRunnerStateKey());
  return typeof item?.last_drained_hour === 'string' ? item.last_drained_hour : undefined;
}

export async function rememberDrainedHour(hour: string): Promise<void> {
  await putItem({ Item: { ...automationRunnerStateKey(), entity: 'automation-runner', last_drained_hour: hour, updated_at: isoTimestamp() } });
}
