// Reading uploaded CSV files: header names, line numbers, line ends, quoting, unreadable input, and
// the bounds that keep the work linear in the file's own cells.
import { csvLimits, csvSliceBytes, CsvTooLarge, CsvUnreadable, readCsv, readCsvTable, type CsvRow } from '../../shared/csv/read-csv';
import { eventLoopTurnsDuring } from '../support/event-loop';

async function rows(csv: string | Buffer) {
  const table = await readCsvTable(Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'));
  return table.rows.map((row) => ({
    line: row.line,
    cells: Object.fromEntries(row.cells.flatMap((cell, index) => (table.columns[index] ? [[table.columns[index], cell]] : []))),
  }));
}

/** Every row `readCsv` hands over, and how it ended: the columns or the refusal. */
async function readAll(content: Buffer): Promise<{ rows: CsvRow[]; outcome: unknown }> {
  const seen: CsvRow[] = [];
  try {
    return { rows: seen, outcome: await readCsv(content, (row) => seen.push(row)) };
  } catch (error) {
    return { rows: seen, outcome: error };
  }
}

/** A header of `columns` names (the first `email`) and `rows` one-cell rows, one line each. */
function wideFile(columns: number, rows: number): Buffer {
  const header = ['email', ...Array.from({ length: columns - 1 }, (_, i) => `c${i}`)].join(',');
  return Buffer.from([header, ...Array.from({ length: rows }, (_, i) => `x${i}@example.com`)].join('\n'));
}

describe('readCsvTable', () => {
  it('names cells by the trimmed, lower-cased header and drops a BOM', async () => {
    const table = await readCsvTable(Buffer.from('\uFEFF Email ,First_Name\nada@example.com,Ada\n'));
    expect(table.columns).toEqual(['email', 'first_name']);
    expect(await rows('\uFEFF Email ,First_Name\nada@example.com,Ada\n')).toEqual([{ line: 2, cells: { email: 'ada@example.com', first_name: 'Ada' } }]);
  });

  it('numbers rows by the file line they start on, whatever ends the lines', async () => {
    expect((await rows('a,b\r\n\r\n1,"x\r\ny"\r\n2,3\r4,5\n\n"q\n\nr",s')).map((row) => row.line)).toEqual([3, 5, 6, 8]);
  });

  it('keeps quoted commas, quotes and line breaks (as LF) inside a cell', async () => {
    expect((await rows('a,b\n"1, 2","say ""hi""\r\nthere"\n'))[0]?.cells).toEqual({ a: '1, 2', b: 'say "hi"\nthere' });
  });

  it('skips blank lines and rows of empty cells, and accepts short and long rows', async () => {
    expect(await rows('a,b\n\n , \nonly\n1,2,3\n')).toEqual([
      { line: 4, cells: { a: 'only' } },
      { line: 5, cells: { a: '1', b: '2' } },
    ]);
  });

  it('keeps the first of two columns of one name and ignores columns without a name', async () => {
    expect((await readCsvTable(Buffer.from('a,,A,b\n1,2,3,4\n'))).columns).toEqual(['a', '', '', 'b']);
    expect((await rows('a,,A\n1,2,3\n'))[0]?.cells).toEqual({ a: '1' });
  });

  it('reads a file that is not UTF-8 as Latin-1', async () => {
    expect((await rows(Buffer.from('name\nJos\xe9\n', 'latin1')))[0]?.cells).toEqual({ name: 'José' });
  });

  it('answers no columns for an empty file', async () => {
    expect(await readCsvTable(Buffer.alloc(0))).toEqual({ columns: [], rows: [] });
  });

  it.each([
    ['an unterminated quote', Buffer.from('a,b\n"1,2\n')],
    ['binary content', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x1a])],
  ])('refuses %s', async (_, content) => {
    await expect(readCsvTable(content)).rejects.toBeInstanceOf(CsvUnreadable);
  });
});

describe('readCsv bounds', () => {
  it('holds only the cells a row has, never one per header column', async () => {
    // A row is as wide as its own record: one cell under 500 columns, and a long row cut at the header.
    const { rows: seen } = await readAll(Buffer.from(`${wideFile(csvLimits.columns, 2).toString()}\n1,2,3`));
    expect(seen.map((row) => row.cells.length)).toEqual([1, 1, 3]);
    const { rows: cut } = await readAll(Buffer.from('a,b\n1,2,3,4\n'));
    expect(cut).toEqual([{ line: 2, cells: ['1', '2'] }]);
  });

  it.each([
    ['20,000 columns and 20,000 rows', 20_000, 20_000],
    ['20,000 columns and no row', 20_000, 0],
    [`${csvLimits.columns + 1} columns`, csvLimits.columns + 1, 3],
  ])('refuses a header of %s at the header, before reading any row', async (_, columns, rowCount) => {
    const { rows: seen, outcome } = await readAll(wideFile(columns, rowCount));
    expect(outcome).toBeInstanceOf(CsvTooLarge);
    expect(outcome).toMatchObject({ limit: 'columns', line: 1 });
    expect(seen).toHaveLength(0);
  });

  it(`takes a header of ${csvLimits.columns} columns`, async () => {
    const { rows: seen, outcome } = await readAll(wideFile(csvLimits.columns, 3));
    expect(outcome).toHaveLength(csvLimits.columns);
    expect(seen).toHaveLength(3);
  });

  it('refuses a row of more cells than the column limit, at that row', async () => {
    const file = Buffer.from(`email\na@example.com\n${','.repeat(csvLimits.columns)}x\nb@example.com\n`);
    const { rows: seen, outcome } = await readAll(file);
    expect(outcome).toMatchObject({ name: 'CsvTooLarge', limit: 'columns', line: 3 });
    expect(seen.map((row) => row.line)).toEqual([2]);
  });

  it(`takes ${csvLimits.rows.toLocaleString('en')} rows and stops at the first row past them`, async () => {
    const atLimit = await readAll(wideFile(1, csvLimits.rows));
    expect(atLimit.outcome).toEqual(['email']);
    expect(atLimit.rows).toHaveLength(csvLimits.rows);

    const past = await readAll(wideFile(1, csvLimits.rows + 50));
    expect(past.outcome).toMatchObject({ name: 'CsvTooLarge', limit: 'rows', line: csvLimits.rows + 2 });
    expect(past.rows).toHaveLength(csvLimits.rows);
  });

  it('refuses a file past the size limit before reading it', async () => {
    const file = Buffer.concat([Buffer.from('email\n'), Buffer.alloc(csvLimits.fileBytes, 'a\n')]);
    const { rows: seen, outcome } = await readAll(file);
    expect(outcome).toMatchObject({ name: 'CsvTooLarge', limit: 'fileBytes' });
    expect(seen).toHaveLength(0);
  });

  it('refuses a row past the row size limit, at that row', async () => {
    const file = Buffer.from(`email,note\na@example.com,short\nb@example.com,"${'n'.repeat(csvLimits.rowBytes)}"\nc@example.com,short\n`);
    const { rows: seen, outcome } = await readAll(file);
    expect(outcome).toMatchObject({ name: 'CsvTooLarge', limit: 'rowBytes', line: 3 });
    expect(seen.map((row) => row.line)).toEqual([2]);
  });

  it('lets the event loop turn while it reads a large file', async () => {
    // Prepare: 10,000 short rows, each shorter than the header (csv-parse's slowest case).
    const file = Buffer.from(['email,first_name', ...Array.from({ length: 10_000 }, (_, i) => `p${i}@example.com`)].join('\n'));

    // Act: read it, counting the turns of the event loop until it is read.
    const {
      result: { rows: seen },
      turns,
    } = await eventLoopTurnsDuring(() => readAll(file));

    // Assess: the loop turned at least once per slice of the file.
    expect(seen).toHaveLength(10_000);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(file.length / csvSliceBytes) - 1);
  });
});
