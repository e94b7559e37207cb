// The rows of a queued contact import as stored at the upload, in pieces of the table: written once
// with the job, read piece by piece by its runs, so no run reads the CSV again.
import { deserialize, serialize } from 'node:v8';
import { batchWriteAll, putRequest } from '../table/batch';
import { RecordNotFound } from '../table/errors';
import { getItem, type Item } from '../table/records';
import { CONTACT_IMPORT, contactImportFileKey, type ImportKind } from './import-keys';
import type { ImportRows, LinkedRow } from './import-rows';

/** A piece of stored rows stays well inside DynamoDB's 400 KB item. */
const filePieceBytes = 300 * 1024;

/** A row as stored: line, next row of its email, cells. */
type StoredRow = [number, number, string[]];

/**
 * At most the bytes a row takes serialized: V8 writes a string of Latin-1 characters one byte each
 * and any other string two bytes a character, each behind a few bytes of tag and length.
 */
function storedRowBytes(cells: readonly string[]): number {
  let bytes = 16;
  for (const cell of cells) bytes += (/[\u0100-\uffff]/.test(cell) ? 2 : 1) * cell.length + 6;
  return bytes;
}

/**
 * Store the file's rows (before the job, so a job's rows are always complete), as parsed at the
 * upload: piece 0 holds the header and the first row of each later piece, the later pieces as many
 * rows as fit one item. A run of the job reads the pieces it needs and never the CSV again.
 */
export async function storeRows(accountId: number, importId: number, file: ImportRows, expiresAt: number, kind: ImportKind = CONTACT_IMPORT): Promise<number> {
  const item = (piece: number, content: Item): Item => ({ ...contactImportFileKey(accountId, importId, piece, kind), entity: `${kind}-file`, ...content, expires_at: expiresAt });
  const pieces: Item[] = [];
  const firstRows: number[] = [];
  let rows: StoredRow[] = [];
  let bytes = 0;
  const close = () => {
    pieces.push(item(pieces.length + 1, { rows: serialize(rows) }));
    rows = [];
    bytes = 0;
  };
  for (let index = 0; index < file.count; index++) {
    const row = await file.row(index);
    const size = storedRowBytes(row.cells);
    if (rows.length > 0 && bytes + size > filePieceBytes) close();
    if (rows.length === 0) firstRows.push(index);
    rows.push([row.line, row.next, row.cells]);
    bytes += size;
  }
  if (rows.length > 0) close();
  await batchWriteAll([item(0, { columns: [...file.columns], first_rows: firstRows }), ...pieces].map(putRequest));
  return pieces.length + 1;
}

/** The rows stored for a queued job, each piece read from the table when a row of it is first asked for. */
export async function loadImportRows(accountId: number, importId: number, count: number, kind: ImportKind = CONTACT_IMPORT): Promise<ImportRows> {
  const header = await getItem(contactImportFileKey(accountId, importId, 0, kind));
  if (!header) throw new RecordNotFound(`${kind}-file`, importId);
  const firstRows = header.first_rows as number[];
  const pieces = new Map<number, Promise<StoredRow[]>>();
  const piece = (number: number): Promise<StoredRow[]> => {
    let rows = pieces.get(number);
    if (!rows) {
      rows = getItem(contactImportFileKey(accountId, importId, number, kind)).then((item) => deserialize(Buffer.from(item?.rows as Uint8Array)) as StoredRow[]);
      pieces.set(number, rows);
    }
    return rows;
  };
  return {
    columns: header.columns as string[],
    count,
    async row(index): Promise<LinkedRow> {
      // The last piece starting at or before the row.
      let low = 0;
      for (let high = firstRows.length - 1; low < high; ) {
        const middle = Math.ceil((low + high) / 2);
        if ((firstRows[middle] as number) <= index) low = middle;
        else high = middle - 1;
      }
      const [line, next, cells] = (await piece(low + 1))[index - (firstRows[low] as number)] as StoredRow;
      return { line, next, cells };
    },
  };
}
