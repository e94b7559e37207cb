// A segment's recipient count in 16 small counter items (keys.ts), apart from the segment item: each
// membership transaction adds its delta to one of them, and a count is their sum (plus the count a
// segment item stored before counts moved out, which nothing changes any more).
//
// The counter items also carry the segment's rules version, so a membership transaction checks it
// there instead of on the segment item: a rules update sets it on all 16 (in the transaction that
// starts the rebuild), a delete marks all 16 deleted (in the transaction that starts the purge). A
// counter item that does not exist yet (a segment never updated since it was saved) takes the
// version of its first writer.
import { randomInt } from 'node:crypto';
import { currentTime } from '../time';
import { batchGetAll } from '../table/batch';
import type { TransactionItem } from '../table/bulk-delete';
import { tableName } from '../table/client';
import type { Key } from '../table/keys';
import { segmentCountKey, segmentCountKeys, segmentRecipientShards } from './keys';

export const countAttribute = 'segment_emails_count';
const rulesAttribute = 'rules_version';

/** The rules version a deleted segment's counters hold: no membership write matches it. */
const deletedMark = 'deleted';

/** How long a deleted segment's counters keep refusing late membership writes before TTL removes them. */
const closedSeconds = 24 * 60 * 60;

/**
 * A membership transaction's count action, on one counter picked at random: the delta, refused
 * (ConditionalCheckFailed) when the segment's rules are no longer `rulesVersion` or, without one,
 * when the segment was deleted. A delta of 0 only checks.
 */
export function countChange(accountId: number, segmentId: number, delta: number, rulesVersion?: string): TransactionItem {
  const key = segmentCountKey(accountId, segmentId, randomInt(segmentRecipientShards));
  const condition = rulesVersion === undefined ? 'attribute_not_exists(#rules) OR #rules <> :deleted' : 'attribute_not_exists(#rules) OR #rules = :rules';
  const values = rulesVersion === undefined ? { ':deleted': deletedMark } : { ':rules': rulesVersion };
  if (delta === 0) {
    return { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: condition, ExpressionAttributeNames: { '#rules': rulesAttribute }, ExpressionAttributeValues: values } };
  }
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: rulesVersion === undefined ? 'ADD #count :delta' : 'SET #rules = if_not_exists(#rules, :rules) ADD #count :delta',
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#rules': rulesAttribute, '#count': countAttribute },
      ExpressionAttributeValues: { ':delta': delta, ...values },
    },
  };
}

/** The counter a contact's departure (its delete) lowers: by contact id, so one bulk delete spreads over all 16. */
export function departureCountKey(accountId: number, segmentId: number, contactId: number): Key {
  return segmentCountKey(accountId, segmentId, contactId % segmentRecipientShards);
}

/** The writes that give every counter a segment's new rules version (with the update that sets them). */
export function countRulesUpdates(accountId: number, segmentId: number, rulesVersion: string): TransactionItem[] {
  return segmentCountKeys(accountId, segmentId).map((key) => ({
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #rules = :rules',
      ExpressionAttributeNames: { '#rules': rulesAttribute },
      ExpressionAttributeValues: { ':rules': rulesVersion },
    },
  }));
}

/** The writes that mark every counter of a deleted segment (with its delete); TTL removes them a day later. */
export function countClosings(accountId: number, segmentId: number): TransactionItem[] {
  const expires = Math.floor(currentTime().getTime() / 1000) + closedSeconds;
  return segmentCountKeys(accountId, segmentId).map((key) => ({
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #rules = :deleted, expires_at = :expires',
      ExpressionAttributeNames: { '#rules': rulesAttribute },
      ExpressionAttributeValues: { ':deleted': deletedMark, ':expires': expires },
    },
  }));
}

/** The sum of each segment's counters: 16 small items per segment, read in BatchGets of 100. */
export async function countedRecipients(accountId: number, segmentIds: readonly number[]): Promise<Map<number, number>> {
  const keys = segmentIds.flatMap((id) => segmentCountKeys(accountId, id));
  const bySegment = new Map(segmentIds.map((id) => [id, 0]));
  const owner = new Map(segmentIds.flatMap((id) => segmentCountKeys(accountId, id).map((key) => [key.pk, id] as const)));
  for (const item of await batchGetAll(keys, { concurrency: 4 })) {
    const id = owner.get(String(item.pk));
    if (id !== undefined) bySegment.set(id, (bySegment.get(id) ?? 0) + Number(item[countAttribute] ?? 0));
  }
  return bySegment;
}
