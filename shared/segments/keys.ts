// Keys of segments, their recipients, their counts and their exclusions.
//
// A segment's recipients are write-sharded like contacts (contacts/keys.ts): a CSV import into a
// segmented type writes a recipient per matching row in transactions (2 WCU per KB), which one
// partition would cap at about 500 recipients a second. Each recipient item lives in shard
// `fnv1a(lower-cased address) % 16` of the segment's recipient partition, so its key is still
// computable from the address alone: 5,000 recipients/s x 2 WCU = 10,000 WCU/s over 16 shards is
// 625 WCU/s a partition, under DynamoDB's 1,000. Readers in address order merge the 16 shards.
// The recipient count is kept in 16 small counter items (one partition each), never on the segment
// item: a membership transaction adds its delta to one of them, picked at random, and a count is
// read as their sum. Exclusions (contacts taken out by hand) are one small item each.
import { fnv1a } from '../table/keys';
import { type Key, entityKey, entityPartition, idSortKey, shardPartition } from '../table/keys';

// Segments

export const SEGMENT = 'segment';

export const SEGMENT_RECIPIENT = 'segment-recipient';

export function segmentKey(accountId: number, id: number): Key {
  return entityKey(accountId, SEGMENT, id);
}

export function segmentPartition(accountId: number): string {
  return entityPartition(accountId, SEGMENT);
}

/** The gsi1 partition listing the segments of one contact type, so a contact change reads them in one Query. */
export function segmentsOfContactTypePartition(accountId: number, contactTypeId: number): string {
  return `${entityPartition(accountId, SEGMENT)}#contact-type#${contactTypeId}`;
}

/** The gsi1 keys a segment carries to appear in its contact type's partition. */
export function segmentContactTypeIndexKey(accountId: number, contactTypeId: number, segmentId: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: segmentsOfContactTypePartition(accountId, contactTypeId), gsi1sk: idSortKey(segmentId) };
}

/** Shards of each segment's recipient partition, and of its count. */
export const segmentRecipientShards = 16;

/**
 * A segment's recipients as one list: no item has it as its pk (items live in its shards), but list
 * cursors are bound to it. Recipients stored before they were sharded live in this partition itself.
 */
export function segmentRecipientPartition(accountId: number, segmentId: number): string {
  return `${entityPartition(accountId, SEGMENT_RECIPIENT)}#${segmentId}`;
}

/** One shard of a segment's recipient partition; each lists its recipients in address order. */
export function segmentRecipientShardPartition(accountId: number, segmentId: number, shard: number): string {
  return shardPartition(segmentRecipientPartition(accountId, segmentId), shard);
}

/** Every shard of a segment's recipient partition. */
export function segmentRecipientShardPartitions(accountId: number, segmentId: number): string[] {
  return Array.from({ length: segmentRecipientShards }, (_, shard) => segmentRecipientShardPartition(accountId, segmentId, shard));
}

/**
 * A segment's recipient item, keyed by lower-cased address (the key itself keeps each address once
 * per segment), in the shard of a hash of that address, so its key is known from the address alone.
 */
export function segmentRecipientKey(accountId: number, segmentId: number, email: string): Key {
  const address = email.toLowerCase();
  return { pk: shardPartition(segmentRecipientPartition(accountId, segmentId), fnv1a(address) % segmentRecipientShards), sk: address };
}

/**
 * Where a recipient was stored before recipients were sharded: in the list's partition itself, keyed
 * by the lower-cased address. Such an item stays where it is for its whole life (reads take that
 * partition as one more shard), so an address is never in two places at once.
 */
export function legacySegmentRecipientKey(accountId: number, segmentId: number, email: string): Key {
  return { pk: segmentRecipientPartition(accountId, segmentId), sk: email.toLowerCase() };
}

/** The gsi1 keys that find a recipient by its id alone (segment/email/delete names only the id); one gsi1 partition per id. */
export function segmentRecipientIdIndexKey(accountId: number, recipientId: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `${entityPartition(accountId, SEGMENT_RECIPIENT)}#id#${recipientId}`, gsi1sk: idSortKey(recipientId) };
}

/** One of a segment's count items: each its own partition, so concurrent membership writes spread over 16. */
export function segmentCountKey(accountId: number, segmentId: number, shard: number): Key {
  return { pk: shardPartition(entityPartition(accountId, `segment-count#${segmentId}`), shard), sk: 'count' };
}

/** Every count item of a segment. */
export function segmentCountKeys(accountId: number, segmentId: number): Key[] {
  return Array.from({ length: segmentRecipientShards }, (_, shard) => segmentCountKey(accountId, segmentId, shard));
}

/** The partition of a segment's exclusions, in contact id order. */
export function segmentExclusionPartition(accountId: number, segmentId: number): string {
  return entityPartition(accountId, `segment-exclusion#${segmentId}`);
}

/** The item that keeps one contact out of a segment while it still matches (its recipient was deleted by hand). */
export function segmentExclusionKey(accountId: number, segmentId: number, contactId: number): Key {
  return { pk: segmentExclusionPartition(accountId, segmentId), sk: idSortKey(contactId) };
}

/**
 * The partition listing the account's segments that have engagement conditions, one small item each,
 * so an open or a click finds the segments it may move contacts in with one Query.
 */
export function engagementSegmentPartition(accountId: number): string {
  return entityPartition(accountId, 'engagement-segment');
}

export function engagementSegmentKey(accountId: number, segmentId: number): Key {
  return { pk: engagementSegmentPartition(accountId), sk: idSortKey(segmentId) };
}
