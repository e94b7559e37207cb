// Reading an uploaded CSV file into rows of cells with each row's line number, in work linear in the
// file's own cells and within bounds that keep one file from holding a function's CPU or memory.
import { finished } from 'node:stream/promises';
import { Parser, type CsvError, type InfoRecord } from 'csv-parse';

/**
 * What one file may hold. The file arrives in a multipart body that API Gateway hands to Lambda
 * base64-encoded inside the event, and Lambda takes at most 6 MB (6,291,456 bytes) per synchronous
 * request: 4 MB of file is 5.6 MB of event, with room for the multipart framing and headers.
 * Columns: the 11 contact columns and a few hundred custom fields. Rows: what 4 MB of typical
 * contact rows hold; they also bound csv-parse's slowest case, rows of another cell count than the
 * header, for which it builds an error object each (tens of microseconds a row). A row's bytes bound
 * one record in memory (csv-parse's `max_record_size`) and keep a stored row far inside a DynamoDB item.
 */
export const csvLimits = { fileBytes: 4 * 1024 * 1024, columns: 500, rows: 50_000, rowBytes: 128 * 1024 } as const;

export type CsvLimit = keyof typeof csvLimits;

/**
 * The file is handed to the parser in slices of this size, with a turn of the event loop after each:
 * a slice of the shortest rows of csv-parse's slowest case is a few milliseconds of work, so a file
 * never holds the event loop (other requests, on the local stack all in one process) for longer.
 */
export const csvSliceBytes = 512;

/** The file could not be read as CSV (unbalanced quotes, binary content). */
export class CsvUnreadable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CsvUnreadable';
  }
}

/** The file is past one of `csvLimits`; `line` is where reading stopped (none for the file's size). */
export class CsvTooLarge extends Error {
  constructor(
    readonly limit: CsvLimit,
    readonly line?: number,
  ) {
    super(`The file is past its ${limit} limit of ${csvLimits[limit]}${line === undefined ? '' : ` at line ${line}`}`);
    this.name = 'CsvTooLarge';
  }
}

export interface CsvRow {
  /** 1-based line of the file where the row starts; the header is line 1 when it is the first line. */
  line: number;
  /** The row's own cells by header position: a short row has fewer, cells beyond the header are dropped. */
  cells: string[];
}

export interface CsvTable {
  /**
   * Header names, lower-cased and trimmed, in file order. A column without a name, or repeating an
   * earlier column's name, is '' (its cells are ignored: the first of two same-named columns wins).
   */
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

function headerNames(record: readonly string[]): string[] {
  const seen = new Set<string>();
  return record.map((cell) => {
    const name = cell.trim().toLowerCase();
    if (seen.has(name)) return '';
    seen.add(name);
    return name;
  });
}

/** The line a record starts on: `lines` is where it ends, and a quoted cell's line breaks move its start up. */
function startLine(record: readonly string[], endLine: number): number {
  let breaks = 0;
  for (const cell of record) for (let at = cell.indexOf('\n'); at !== -1; at = cell.indexOf('\n', at + 1)) breaks++;
  return endLine - breaks;
}

const yieldTurn = () => new Promise<void>((resume) => setImmediate(resume));

/**
 * Run synchronous parsing without capturing stack traces. csv-parse builds an error object for every
 * row whose cell count differs from the header's (relax_column_count keeps the row and drops the
 * error); capturing its stack is about half of that row's cost, and nothing ever reads it.
 */
function withoutStacks(parse: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    parse();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Read a CSV file row by row: the first non-blank line is the header, each later row goes to
 * `onRow` in file order. Commas separate cells, double quotes quote them (a quoted cell may hold
 * commas and line breaks), and CRLF, LF and CR all end a row (line breaks inside a quoted cell are
 * read as LF). Blank lines and rows of empty cells are skipped; rows may have fewer or more cells
 * than the header. Answers the header's columns (see CsvTable). Throws CsvUnreadable, or CsvTooLarge
 * as soon as the file is past a limit: the size before anything is read, the columns at the header
 * (or the row) that has too many, the rows at the first row past the limit.
 */
export async function readCsv(content: Buffer, onRow: (row: CsvRow) => void): Promise<string[]> {
  if (content.length > csvLimits.fileBytes) throw new CsvTooLarge('fileBytes');
  // One line end, so line numbers count alike whatever ended the lines (a quoted CRLF becomes LF).
  const text = decode(content).replace(/\r\n?/g, '\n');
  if (text.includes('\u0000')) throw new CsvUnreadable('binary content');
  const bytes = Buffer.from(text, 'utf8');

  let columns: string[] | undefined;
  let rows = 0;
  // Each record is taken as it is parsed and checked here against the header. csv-parse's own
  // `columns` would copy the whole column list into an error object for every row shorter than the
  // header: rows x columns again. A throw here stops the parser at that record.
  const takeRecord = (record: string[], info: InfoRecord): null => {
    const line = startLine(record, info.lines);
    if (record.length > csvLimits.columns) throw new CsvTooLarge('columns', line);
    if (!columns) columns = headerNames(record);
    else if (++rows > csvLimits.rows) throw new CsvTooLarge('rows', line);
    else onRow({ line, cells: record.length > columns.length ? record.slice(0, columns.length) : record });
    // Nothing goes on to the stream's readable side: no buffering, no backpressure.
    return null;
  };
  const parser = new Parser({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    record_delimiter: '\n',
    max_record_size: csvLimits.rowBytes,
    on_record: takeRecord,
  });
  const failed = (error: unknown): Error => {
    if (error instanceof CsvTooLarge) return error;
    const parse = error as CsvError & { lines?: number };
    return parse.code === 'CSV_MAX_RECORD_SIZE' ? new CsvTooLarge('rowBytes', parse.lines) : new CsvUnreadable(parse.message);
  };
  const done = finished(parser, { readable: false });
  // Each write parses its slice at once (on_record included); a failure shows on `errored` right away.
  for (let start = 0; start < bytes.length; start += csvSliceBytes) {
    withoutStacks(() => parser.write(bytes.subarray(start, start + csvSliceBytes)));
    if (parser.errored) break;
    await yieldTurn();
  }
  if (!parser.errored) withoutStacks(() => parser.end());
  try {
    await done;
  } catch (error) {
    throw failed(error);
  }
  return columns ?? [];
}

/** The whole file in memory: its columns and rows (see readCsv). */
export async function readCsvTable(content: Buffer): Promise<CsvTable> {
  const rows: CsvRow[] = [];
  const columns = await readCsv(content, (row) => rows.push(row));
  return { columns, rows };
}
