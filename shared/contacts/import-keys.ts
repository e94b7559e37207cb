// Keys of contact import jobs: the job, the rows of its file stored in pieces and the error report.
import { type Key, entityKey, entityPartition, idSortKey, shardPartition } from '../table/keys';

export const CONTACT_IMPORT = 'contact-import';

/** A CSV import job's own item: its state, counts and checkpoint. */
export function contactImportKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_IMPORT, id);
}

/** Where one import job's stored rows are, in pieces numbered from 0 (piece 0: the header). */
export function contactImportFilePartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-file#${importId}`);
}

/**
 * One piece in a partition of its own: the pieces of a file (up to 300 KB, so 300 write units each)
 * are written together at the upload, and one partition takes 1,000 write units a second.
 */
export function contactImportFileKey(accountId: number, importId: number, piece: number): Key {
  return { pk: shardPartition(contactImportFilePartition(accountId, importId), piece), sk: idSortKey(piece) };
}

/** The partition of one import job's row errors, one item per chunk, by the chunk's first row. */
export function contactImportErrorsPartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-errors#${importId}`);
}

export function contactImportErrorsKey(accountId: number, importId: number, firstRow: number): Key {
  return { pk: contactImportErrorsPartition(accountId, importId), sk: idSortKey(firstRow) };
}
