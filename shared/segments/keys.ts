// Keys of segments and their recipients.
import { type Key, entityKey, entityPartition, idSortKey } from '../table/keys';

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

/** The partition holding one segment's recipients. */
export function segmentRecipientPartition(accountId: number, segmentId: number): string {
  return `${entityPartition(accountId, SEGMENT_RECIPIENT)}#${segmentId}`;
}

/** A segment's recipient item, keyed by lower-cased address: the key itself keeps each address once per segment. */
export function segmentRecipientKey(accountId: number, segmentId: number, email: string): Key {
  return { pk: segmentRecipientPartition(accountId, segmentId), sk: email.toLowerCase() };
}

/** The gsi1 keys that find a recipient by its id alone (segment/email/delete names only the id); one gsi1 partition per id. */
export function segmentRecipientIdIndexKey(accountId: number, recipientId: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `${entityPartition(accountId, SEGMENT_RECIPIENT)}#id#${recipientId}`, gsi1sk: idSortKey(recipientId) };
}
