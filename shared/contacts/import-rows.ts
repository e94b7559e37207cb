// The rows of a contact CSV file as an import job reads them: by index, each with the index of the
// next row of the same email, from memory (a file imported during the request) or from the rows
// stored at the upload (a queued job), so no run of a job reads the CSV again.
import type { CsvRow, CsvTable } from '../csv/read-csv';

/** A row of the file, and the index of the next row whose email has the same key (-1: none). */
export interface LinkedRow extends CsvRow {
  next: number;
}

export interface ImportRows {
  /** The file's header (see CsvTable.columns). */
  columns: readonly string[];
  /** How many rows the file has. */
  count: number;
  /** Row `index` (0-based, below `count`). */
  row(index: number): Promise<LinkedRow>;
}

/** Key of a row's email cell, as the import de-duplicates emails (trimmed, case-insensitive). */
export function emailKey(cell: string | undefined): string | undefined {
  const key = cell?.trim().toLowerCase();
  return key ? key : undefined;
}

/** Each row of the table with the index of the next row of its email, in one pass from the end. */
export function linkRows(table: CsvTable): LinkedRow[] {
  const email = table.columns.indexOf('email');
  const following = new Map<string, number>();
  const linked = new Array<LinkedRow>(table.rows.length);
  for (let index = table.rows.length - 1; index >= 0; index--) {
    const row = table.rows[index] as CsvRow;
    const key = email === -1 ? undefined : emailKey(row.cells[email]);
    linked[index] = { ...row, next: key === undefined ? -1 : (following.get(key) ?? -1) };
    if (key !== undefined) following.set(key, index);
  }
  return linked;
}

/** A table read in this process as the rows of an import. */
export function tableRows(table: CsvTable): ImportRows {
  const rows = linkRows(table);
  return { columns: table.columns, count: rows.length, row: async (index) => rows[index] as LinkedRow };
}
