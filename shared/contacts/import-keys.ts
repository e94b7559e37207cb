// Keys of contact import jobs: the job, the rows of its file stored in pieces and the error report.
import { type Key, entityKey, entityPartition, idSortKey } from '../table/keys';

export const CONTACT_IMPORT = 'contact-import';

/** A CSV import job's own item: its state, counts and checkpoint. */
export function contactImportKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_IMPORT, id);
}

/** The partition of one import job's stored rows, in pieces numbered from 0 (piece 0: the header). */
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
