// Keys of contact import jobs: the job, the rows of its file stored in pieces and the error report.
// Two kinds of import share them, each under its own name: a CSV upload's (ids of their own) and a
// bulk JSON upsert's (keyed by its background job's id).
import { type Key, entityKey, entityPartition, idSortKey, shardPartition } from '../table/keys';

export const CONTACT_IMPORT = 'contact-import';
export const CONTACT_UPSERT = 'contact-upsert';

/** Which kind of import: the name its items are kept under. */
export type ImportKind = typeof CONTACT_IMPORT | typeof CONTACT_UPSERT;

/** An import job's own item: its state, counts and checkpoint. */
export function contactImportKey(accountId: number, id: number, kind: ImportKind = CONTACT_IMPORT): Key {
  return entityKey(accountId, kind, id);
}

/** Where one import job's stored rows are, in pieces numbered from 0 (piece 0: the header). */
export function contactImportFilePartition(accountId: number, importId: number, kind: ImportKind = CONTACT_IMPORT): string {
  return entityPartition(accountId, `${kind}-file#${importId}`);
}

/**
 * One piece in a partition of its own: the pieces of a file (up to 300 KB, so 300 write units each)
 * are written together at the upload, and one partition takes 1,000 write units a second.
 */
export function contactImportFileKey(accountId: number, importId: number, piece: number, kind: ImportKind = CONTACT_IMPORT): Key {
  return { pk: shardPartition(contactImportFilePartition(accountId, importId, kind), piece), sk: idSortKey(piece) };
}

/** The partition of one import job's row errors, one item per chunk, by the chunk's first row. */
export function contactImportErrorsPartition(accountId: number, importId: number, kind: ImportKind = CONTACT_IMPORT): string {
  return entityPartition(accountId, `${kind}-errors#${importId}`);
}

export function contactImportErrorsKey(accountId: number, importId: number, firstRow: number, kind: ImportKind = CONTACT_IMPORT): Key {
  return { pk: contactImportErrorsPartition(accountId, importId, kind), sk: idSortKey(firstRow) };
}
