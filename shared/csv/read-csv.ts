// Reading an uploaded CSV file into named cells per row, with each row's line number in the file.
import { parse } from 'csv-parse/sync';

/** The file could not be read as CSV (unbalanced quotes, binary content). */
export class CsvUnreadable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CsvUnreadable';
  }
}

export interface CsvRow {
  /** 1-based line of the file where the row starts; the header is line 1 when it is the first line. */
  line: number;
  /** Cells by lower-cased, trimmed header name; cells beyond the header are dropped. */
  cells: Map<string, string>;
}

export interface CsvTable {
  /** Header names, lower-cased and trimmed, in file order. */
  columns: string[];
  rows: CsvRow[];
}

/** UTF-8 (a BOM is dropped); a file that is not valid UTF-8 is read as Latin-1, as older spreadsheet exports are. */
function decode(content: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return content.toString('latin1');
  }
}

/**
 * Parse a CSV file: the first non-blank line is the header. Commas separate cells, double quotes
 * quote them (a quoted cell may hold commas and line breaks), and CRLF, LF and CR all end a row
 * (line breaks inside a quoted cell are read as LF).
 * Blank lines are skipped and rows may have fewer or more cells than the header.
 */
export function readCsvTable(content: Buffer): CsvTable {
  // One line end, so line numbers count alike whatever ended the lines (a quoted CRLF becomes LF).
  const text = decode(content).replace(/\r\n?/g, '\n');
  if (text.includes('\u0000')) throw new CsvUnreadable('binary content');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      record_delimiter: '\n',
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    throw new CsvUnreadable((error as Error).message);
  }
  const [header, ...body] = records;
  if (!header) return { columns: [], rows: [] };
  const columns = header.record.map((name) => name.trim().toLowerCase());
  const rows = body.map(({ record, info }) => {
    const cells = new Map<string, string>();
    columns.forEach((column, index) => {
      // The first of two same-named columns wins; a column without a name is ignored.
      if (column !== '' && !cells.has(column) && index < record.length) cells.set(column, record[index] as string);
    });
    // `lines` is where the row ends; a quoted cell's line breaks move its start up.
    const breaks = record.reduce((count, cell) => count + (cell.match(/\n/g)?.length ?? 0), 0);
    return { line: info.lines - breaks, cells };
  });
  return { columns, rows };
}
