// Contacts taken out of a segment by hand (their recipient deleted while they still match): one small
// item per segment and contact, so a segment's exclusions never make any item grow. Before they were
// items, they were a set on the segment item (`excluded_contact_ids`), which is still read with them.
import { batchGetAll, batchWriteAll, deleteRequest } from '../table/batch';
import type { TransactionAction } from '../table/transactions';
import { idSortKey } from '../table/keys';
import { queryAll, queryPage } from '../table/records';
import { segmentExclusionKey, segmentExclusionPartition } from './keys';
import type { SegmentRules } from './repository';

/** The Put that excludes a contact (in the transaction that deletes its recipient). */
export function exclusionPut(accountId: number, segmentId: number, contactId: number, now: string): TransactionAction {
  return {
    Put: {
      Item: { ...segmentExclusionKey(accountId, segmentId, contactId), entity: 'segment-exclusion', contact_id: contactId, created_at: now },
    },
  };
}

/**
 * The segment's rules with the exclusions among these contacts added, for contacts whose ids lie
 * close together (one contact, a page of a type's contacts, an import chunk): one Query of the
 * exclusions between the lowest id and the highest, which reads exclusions only, never a key per contact.
 */
export async function withExclusionsOf(accountId: number, segment: SegmentRules, contactIds: readonly number[]): Promise<SegmentRules> {
  if (contactIds.length === 0) return segment;
  const items = await queryAll({ partition: segmentExclusionPartition(accountId, segment.id), between: [idSortKey(Math.min(...contactIds)), idSortKey(Math.max(...contactIds))] });
  const found = items.map((item) => Number(item.contact_id));
  return { ...segment, excluded_contact_ids: new Set([...segment.excluded_contact_ids, ...found]) };
}

/** The same for contacts whose ids lie far apart (a page of recipients in address order): a BatchGet of each contact's exclusion. */
export async function withExclusionsAmong(accountId: number, segment: SegmentRules, contactIds: readonly number[]): Promise<SegmentRules> {
  const items = await batchGetAll(contactIds.map((id) => segmentExclusionKey(accountId, segment.id, id)));
  return { ...segment, excluded_contact_ids: new Set([...segment.excluded_contact_ids, ...items.map((item) => Number(item.contact_id))]) };
}

/** Delete up to `limit` exclusions of a (deleted) segment; answers how many went (0: none was left). */
export async function deleteExclusionsPage(accountId: number, segmentId: number, limit = 500): Promise<number> {
  const page = await queryPage({ partition: segmentExclusionPartition(accountId, segmentId), limit });
  await batchWriteAll(page.items.map(deleteRequest));
  return page.items.length;
}
