// Reading the rows of a contact CSV file as contact input: each row validated like contacts/add, by
// ranges, so an import job can take a file chunk by chunk and get the same rows on every replay.
import type { CsvTable } from '../csv/read-csv';
import { fieldsByName } from './items';
import type { ImportRow } from './import-writes';
import type { RowError } from './import-jobs';
import { listCustomFields } from '../custom-fields/repository';
import { findCountry, findCountryByCode } from '../reference-data/repository';
import { ValidationError } from '../http/errors';
import { contactColumns, readContactInput } from './input';

export type { RowError };

type RowResult = { ok: true; row: ImportRow } | { ok: false; error: RowError };

/** A country cell: an id, an ISO2 or ISO3 code, or a name; each distinct cell is looked up once. */
function countryResolver(): (value: number | string) => Promise<number | undefined> {
  const seen = new Map<string, Promise<number | undefined>>();
  return (value) => {
    const cell = String(value).trim();
    let found = seen.get(cell.toLowerCase());
    if (!found) {
      found = (/^\d+$/.test(cell) ? findCountry(Number(cell)) : findCountryByCode(cell)).then((country) => country?.id);
      seen.set(cell.toLowerCase(), found);
    }
    return found;
  };
}

export interface CsvRowReader {
  /** The standard contact columns the file has: columns it lacks keep their values on update. */
  columns: ReadonlySet<string>;
  /**
   * Rows `start` (inclusive) to `end` (exclusive) of the file: the valid ones to write and the
   * refused ones. A row whose email a later valid row of the file repeats is skipped: the later row wins.
   */
  readRange(start: number, end: number): Promise<{ valid: ImportRow[]; errors: RowError[] }>;
}

/** Key of a row's email cell, as the import de-duplicates emails (trimmed, case-insensitive). */
function emailKey(cells: Map<string, string>): string | undefined {
  const cell = cells.get('email')?.trim().toLowerCase();
  return cell ? cell : undefined;
}

export async function csvRowReader(accountId: number, contactTypeId: number, table: CsvTable): Promise<CsvRowReader> {
  const customFields = fieldsByName(await listCustomFields(accountId));
  const customByColumn = new Map([...customFields.values()].map((field) => [field.field_name.toLowerCase(), field.field_name]));
  const columns = new Set<string>(contactColumns.filter((column) => table.columns.includes(column)));
  const context = { customFields, contactTypeExists: async () => true, resolveCountry: countryResolver(), countryInput: 'id-code-or-name' as const };

  // Where each email appears, so a row can tell whether a later one replaces it.
  const positions = new Map<string, number[]>();
  table.rows.forEach((row, index) => {
    const key = emailKey(row.cells);
    if (key) positions.set(key, [...(positions.get(key) ?? []), index]);
  });
  const results = new Map<number, Promise<RowResult>>();

  const readRow = (index: number): Promise<RowResult> => {
    let result = results.get(index);
    if (!result) {
      result = readOne(index);
      results.set(index, result);
    }
    return result;
  };

  async function readOne(index: number): Promise<RowResult> {
    const row = table.rows[index] as CsvTable['rows'][number];
    const input: Record<string, unknown> = { contact_type_id: contactTypeId };
    const custom: Record<string, string> = {};
    for (const [column, cell] of row.cells) {
      if (columns.has(column)) input[column] = cell;
      else if (customByColumn.has(column)) custom[customByColumn.get(column) as string] = cell;
    }
    input.custom_field = custom;
    try {
      return { ok: true, row: { line: row.line, ...(await readContactInput(input, context)) } };
    } catch (error) {
      if (!(error instanceof ValidationError) || typeof error.errors === 'string') throw error;
      return { ok: false, error: { row: row.line, messages: Object.values(error.errors).flat() } };
    }
  }

  async function replacedLater(index: number): Promise<boolean> {
    const key = emailKey((table.rows[index] as CsvTable['rows'][number]).cells);
    for (const later of (key ? positions.get(key) : undefined) ?? []) {
      if (later > index && (await readRow(later)).ok) return true;
    }
    return false;
  }

  return {
    columns,
    async readRange(start, end) {
      const valid: ImportRow[] = [];
      const errors: RowError[] = [];
      for (let index = start; index < Math.min(end, table.rows.length); index++) {
        const result = await readRow(index);
        if (!result.ok) errors.push(result.error);
        else if (!(await replacedLater(index))) valid.push(result.row);
        results.delete(index);
      }
      return { valid, errors };
    },
  };
}
