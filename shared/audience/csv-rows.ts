// Reading the rows of a contact CSV file as contact input: each row validated like contacts/add, by
// ranges, so an import job can take a file chunk by chunk and get the same rows on every replay.
import { fieldsByName } from '../contacts/items';
import type { ImportRows, LinkedRow } from '../contacts/import-rows';
import type { ImportRow } from './import-lookup';
import { rowError, type RowError } from '../contacts/import-jobs';
import { listCustomFields } from '../custom-fields/repository';
import { findCountry, findCountryByCode } from '../reference-data/repository';
import { ValidationError } from '../errors';
import { contactColumns, readContactInput } from '../contacts/input';

export type { RowError };

/** A row read: valid (to write) or refused with its error, in the shape its kind of import words one. */
export type RowResult<E> = { ok: true; row: ImportRow } | { ok: false; error: E };

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

/** Rows read between two turns of the event loop. */
const yieldEveryRows = 50;

export interface CsvRowReader {
  /** The standard contact columns the file has: columns it lacks keep their values on update. */
  columns: ReadonlySet<string>;
  /** The account's custom fields the rows are read with, by name (the import writes with the same). */
  customFields: ReturnType<typeof fieldsByName>;
  /**
   * Rows `start` (inclusive) to `end` (exclusive) of the file: the valid ones to write and the
   * refused ones. A row whose email a later valid row of the file repeats is skipped: the later row wins.
   */
  readRange(start: number, end: number): Promise<{ valid: ImportRow[]; errors: RowError[] }>;
}

export async function csvRowReader(accountId: number, contactTypeId: number, file: ImportRows): Promise<CsvRowReader> {
  const customFields = fieldsByName(await listCustomFields(accountId));
  const customByColumn = new Map([...customFields.values()].map((field) => [field.field_name.toLowerCase(), field.field_name]));
  const standard = new Set<string>(contactColumns);
  const columns = new Set<string>(contactColumns.filter((column) => file.columns.includes(column)));
  // What each header position feeds, worked out once: a row then costs its own cells, whatever the header's width.
  const fieldAt = file.columns.map((column): { custom: boolean; name: string } | undefined => {
    if (standard.has(column)) return { custom: false, name: column };
    const custom = customByColumn.get(column);
    return custom === undefined ? undefined : { custom: true, name: custom };
  });
  const context = { customFields, contactTypeExists: async () => true, resolveCountry: countryResolver(), countryInput: 'id-code-or-name' as const };

  async function readOne(row: LinkedRow): Promise<RowResult<RowError>> {
    const input: Record<string, unknown> = { contact_type_id: contactTypeId };
    const custom: Record<string, string> = {};
    row.cells.forEach((cell, position) => {
      const field = fieldAt[position];
      if (field?.custom) custom[field.name] = cell;
      else if (field) input[field.name] = cell;
    });
    input.custom_field = custom;
    try {
      return { ok: true, row: { line: row.line, ...(await readContactInput(input, context)) } };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return { ok: false, error: rowError(row.line, Object.values(error.errors).flat()) };
    }
  }

  return { columns, customFields, readRange: linkedRangeReader(file, readOne) };
}

/**
 * Rows `start` to `end` of linked rows as `readOne` reads each: the valid ones to write and the
 * refused ones. A row whose email a later valid row repeats is skipped: the later row wins.
 */
export function linkedRangeReader<E>(file: ImportRows, readOne: (row: LinkedRow) => Promise<RowResult<E>>): (start: number, end: number) => Promise<{ valid: ImportRow[]; errors: E[] }> {
  const results = new Map<number, Promise<RowResult<E>>>();

  const readRow = (index: number): Promise<RowResult<E>> => {
    let result = results.get(index);
    if (!result) {
      result = file.row(index).then(readOne);
      results.set(index, result);
    }
    return result;
  };

  /**
   * Whether a later row of the email is valid: the later rows in file order up to the first valid
   * one, in the same order as ever. Only a valid row asks, and it stops at the next valid row of its
   * email, so a read through the file passes over each row at most once, however often an email repeats.
   */
  async function replacedLater(index: number): Promise<boolean> {
    for (let later = (await file.row(index)).next; later !== -1; later = (await file.row(later)).next) {
      if ((await readRow(later)).ok) return true;
    }
    return false;
  }

  return async (start, end) => {
    const valid: ImportRow[] = [];
    const errors: E[] = [];
    for (let index = start; index < Math.min(end, file.count); index++) {
      // Validation is CPU work on promises that are already settled: without a turn of the event
      // loop now and then, a chunk read ahead would hold up the replies of the chunk writing.
      if ((index - start) % yieldEveryRows === yieldEveryRows - 1) await new Promise((resume) => setImmediate(resume));
      const result = await readRow(index);
      if (!result.ok) errors.push(result.error);
      else if (!(await replacedLater(index))) valid.push(result.row);
      results.delete(index);
    }
    return { valid, errors };
  };
}
