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
import type { TransactionAction } from '../table/transactions';
import { segmentCountKey, segmentCountKeys, segmentRecipientShards } from './keys';

export const countAttribute = 'segment_emails_count';
const rulesAttribute = 'rules_version';

/** The rules version a deleted segment's counters hold: no membership write matches it. */
const deletedMark = 'deleted';

/**
 * A membership transaction's count action, on one counter picked at random: the delta (0 only
 * checks), refused (ConditionalCheckFailed) when the segment's rules are no longer `rulesVersion`
 * or, without one, when the segment was deleted.
 */
export function countChange(accountId: number, segmentId: number, delta: number, rulesVersion = ''): TransactionAction {
  return {
    Update: {
      Key: segmentCountKey(accountId, segmentId, randomInt(segmentRecipientShards)),
      UpdateExpression: 'ADD segment_emails_count :delta',
      ConditionExpression: `attribute_not_exists(rules_version) OR rules_version ${rulesVersion ? '=' : '<>'} :rules`,
      ExpressionAttributeValues: { ':delta': delta, ':rules': rulesVersion || deletedMark },
    },
  };
}

/** The writes that give every counter a segment's new rules version (with the update that sets them). */
export function countRulesUpdates(accountId: number, segmentId: number, rulesVersion: string): TransactionAction[] {
  return stamped(accountId, segmentId, { '#rules': rulesVersion });
}

/**
 * The writes that mark every counter of a deleted segment (with its delete): they refuse late
 * membership writes for a day, then TTL removes them.
 */
export function countClosings(accountId: number, segmentId: number): TransactionAction[] {
  return stamped(accountId, segmentId, { '#rules': deletedMark, '#expires': Math.floor(currentTime().getTime() / 1000) + 86_400 });
}

function stamped(accountId: number, segmentId: number, values: Record<string, string | number>): TransactionAction[] {
  const names = Object.keys(values);
  return segmentCountKeys(accountId, segmentId).map((key) => ({
    Update: {
      Key: key,
      UpdateExpression: `SET ${names.map((name, i) => `${name} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name) => [name, name === '#rules' ? rulesAttribute : 'expires_at'])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
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
