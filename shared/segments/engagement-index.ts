// The account's segments with engagement conditions, one small item each beside the segment item,
// written in the transaction that saves, updates or deletes the segment: what an open, a click, a
// send's completion and the daily slide read to find the segments they may change (and only those).
import type { TransactionAction } from '../table/transactions';
import { queryAll } from '../table/records';
import type { EngagementOperator } from './engagement-rules';
import { engagementSegmentKey, engagementSegmentPartition } from './keys';
import { isEngagementCondition, type Condition } from './rules';

/** One engagement condition as the index keeps it. */
export interface IndexedCondition {
  field: 'email_opened' | 'email_clicked';
  operator: EngagementOperator;
  value: string;
}

/** A segment with engagement conditions: its id, its contact type and those conditions. */
export interface EngagementSegment {
  segmentId: number;
  contactTypeId: number;
  conditions: IndexedCondition[];
}

function indexed(conditions: readonly Condition[]): IndexedCondition[] {
  return conditions.filter(isEngagementCondition).map((condition) => ({ field: condition.field as IndexedCondition['field'], operator: condition.operator as EngagementOperator, value: condition.value }));
}

/** The write that keeps a segment's index item current with its conditions: a Put when it has engagement conditions, else a Delete. */
export function engagementIndexWrite(accountId: number, segmentId: number, contactTypeId: number, conditions: readonly Condition[]): TransactionAction {
  const key = engagementSegmentKey(accountId, segmentId);
  const kept = indexed(conditions);
  if (kept.length === 0) return { Delete: { Key: key } };
  return { Put: { Item: { ...key, entity: 'engagement-segment', segment_id: segmentId, contact_type_id: contactTypeId, conditions: kept } } };
}

/** The write that takes a deleted segment out of the index. */
export function engagementIndexDelete(accountId: number, segmentId: number): TransactionAction {
  return { Delete: { Key: engagementSegmentKey(accountId, segmentId) } };
}

/** The account's segments with engagement conditions (one Query of small items; none: one read unit at most). */
export async function listEngagementSegments(accountId: number): Promise<EngagementSegment[]> {
  const items = await queryAll({ partition: engagementSegmentPartition(accountId) });
  return items.map((item) => ({ segmentId: Number(item.segment_id), contactTypeId: Number(item.contact_type_id), conditions: (item.conditions as IndexedCondition[] | undefined) ?? [] }));
}
