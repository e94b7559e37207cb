// Keys of paged-list indexes and contact import jobs.
import { AUTOMATION } from './automations';
import { type Key, entityKey, entityPartition, idSortKey } from './base';
import { UNSUBSCRIBE_GROUP_RECIPIENT } from './suppressions';

// Paged lists and contact import jobs

/** The gsi1 partition listing an account's automations in id order (their items are keyed by utr). */
export function automationIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${AUTOMATION}-by-id`);
}

/** The gsi1 keys an automation carries to appear in its account's id-ordered list. */
export function automationIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: automationIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}

export const CONTACT_IMPORT = 'contact-import';

/** A CSV import job's own item: its state, counts and checkpoint. */
export function contactImportKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_IMPORT, id);
}

/** The partition of one import job's stored file, in pieces numbered from 0. */
export function contactImportFilePartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-file#${importId}`);
}

export function contactImportFileKey(accountId: number, importId: number, piece: number): Key {
  return { pk: contactImportFilePartition(accountId, importId), sk: idSortKey(piece) };
}

/** The partition of one import job's row errors, one item per chunk, by the chunk's first row. */
export function contactImportErrorsPartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-errors#${importId}`);
}

export function contactImportErrorsKey(accountId: number, importId: number, firstRow: number): Key {
  return { pk: contactImportErrorsPartition(accountId, importId), sk: idSortKey(firstRow) };
}

/** The gsi1 partition listing one unsubscribe group's recipients in id order (their address items are keyed by address). */
export function unsubscribeGroupRecipientIdIndexPartition(accountId: number, groupId: number): string {
  return entityPartition(accountId, `${UNSUBSCRIBE_GROUP_RECIPIENT}-by-id#${groupId}`);
}

/** The gsi1 keys a group recipient's record carries to appear in its group's id-ordered list. */
export function unsubscribeGroupRecipientIdIndexKey(accountId: number, groupId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: unsubscribeGroupRecipientIdIndexPartition(accountId, groupId), gsi1sk: idSortKey(id) };
}
