// Contacts taken out of a segment by hand (their recipient deleted while they still match): one small
// item per segment and contact, so a segment's exclusions never make any item grow. Before they were
// items, they were a set on the segment item (`excluded_contact_ids`), which is still read with them.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll, deleteRequest } from '../table/batch';
import type { TransactionItem } from '../table/bulk-delete';
import { db, tableName } from '../table/client';
import { idSortKey } from '../table/keys';
import { queryPage } from '../table/records';
import { segmentExclusionKey, segmentExclusionPartition } from './keys';
import type { SegmentRules } from './repository';

/** The Put that excludes a contact (in the transaction that deletes its recipient). */
export function exclusionPut(accountId: number, segmentId: number, contactId: number, now: string): TransactionItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...segmentExclusionKey(accountId, segmentId, contactId), entity: 'segment-exclusion', contact_id: contactId, created_at: now },
    },
  };
}

/**
 * Exclusion items one read unit holds (about 100 bytes each, 4 KB per unit): a Query of the ids
 * between the lowest and highest asked for is cheaper than a BatchGet of each (a unit per key,
 * found or not) while it spans fewer ids than this many times the ids asked for.
 */
const itemsPerUnit = 40;

/**
 * Which of these contacts are excluded from the segment. Ids close together (a page of contacts, an
 * import chunk) take one Query of the exclusions between the lowest and the highest, which reads
 * only exclusions; ids far apart (a page of recipients in address order) take a BatchGet of each.
 */
export async function excludedAmong(accountId: number, segmentId: number, contactIds: readonly number[]): Promise<Set<number>> {
  const wanted = new Set(contactIds);
  const found = new Set<number>();
  if (wanted.size === 0) return found;
  const lowest = Math.min(...wanted);
  const highest = Math.max(...wanted);
  if (highest - lowest + 1 > itemsPerUnit * wanted.size) {
    const items = await batchGetAll([...wanted].map((id) => segmentExclusionKey(accountId, segmentId, id)));
    return new Set(items.map((item) => Number(item.contact_id)));
  }
  const low = idSortKey(lowest);
  const high = idSortKey(highest);
  let cursor: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': segmentExclusionPartition(accountId, segmentId), ':low': low, ':high': high },
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of result.Items ?? []) if (wanted.has(Number(item.contact_id))) found.add(Number(item.contact_id));
    cursor = result.LastEvaluatedKey;
  } while (cursor);
  return found;
}

/** The segment's rules with the exclusions that concern these contacts (beside those the segment item still lists). */
export async function withExclusionsOf(accountId: number, segment: SegmentRules, contactIds: readonly number[]): Promise<SegmentRules> {
  const found = await excludedAmong(accountId, segment.id, contactIds);
  if (found.size === 0) return segment;
  return { ...segment, excluded_contact_ids: new Set([...segment.excluded_contact_ids, ...found]) };
}

/** Delete up to `limit` exclusions of a (deleted) segment; answers how many went (0: none was left). */
export async function deleteExclusionsPage(accountId: number, segmentId: number, limit = 500): Promise<number> {
  const page = await queryPage({ partition: segmentExclusionPartition(accountId, segmentId), limit });
  await batchWriteAll(page.items.map(deleteRequest));
  return page.items.length;
}
