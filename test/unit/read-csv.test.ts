// Reading uploaded CSV files: header names, line numbers, line ends, quoting and unreadable input.
import { CsvUnreadable, readCsvTable } from '../../shared/csv/read-csv';

function rows(csv: string | Buffer) {
  return readCsvTable(Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8')).rows.map((row) => ({ line: row.line, cells: Object.fromEntries(row.cells) }));
}

describe('readCsvTable', () => {
  it('names cells by the trimmed, lower-cased header and drops a BOM', () => {
    const table = readCsvTable(Buffer.from('\uFEFF Email ,First_Name\nada@example.com,Ada\n'));
    expect(table.columns).toEqual(['email', 'first_name']);
    expect(rows('\uFEFF Email ,First_Name\nada@example.com,Ada\n')).toEqual([{ line: 2, cells: { email: 'ada@example.com', first_name: 'Ada' } }]);
  });

  it('numbers rows by the file line they start on, whatever ends the lines', () => {
    expect(rows('a,b\r\n\r\n1,"x\r\ny"\r\n2,3\r4,5\n\n"q\n\nr",s').map((row) => row.line)).toEqual([3, 5, 6, 8]);
  });

  it('keeps quoted commas, quotes and line breaks (as LF) inside a cell', () => {
    expect(rows('a,b\n"1, 2","say ""hi""\r\nthere"\n')[0]?.cells).toEqual({ a: '1, 2', b: 'say "hi"\nthere' });
  });

  it('skips blank lines and rows of empty cells, and accepts short and long rows', () => {
    expect(rows('a,b\n\n , \nonly\n1,2,3\n')).toEqual([
      { line: 4, cells: { a: 'only' } },
      { line: 5, cells: { a: '1', b: '2' } },
    ]);
  });

  it('keeps the first of two columns of one name and ignores columns without a name', () => {
    expect(rows('a,,A\n1,2,3\n')[0]?.cells).toEqual({ a: '1' });
  });

  it('reads a file that is not UTF-8 as Latin-1', () => {
    expect(rows(Buffer.from('name\nJos\xe9\n', 'latin1'))[0]?.cells).toEqual({ name: 'José' });
  });

  it('answers no columns for an empty file', () => {
    expect(readCsvTable(Buffer.alloc(0))).toEqual({ columns: [], rows: [] });
  });

  it.each([
    ['an unterminated quote', Buffer.from('a,b\n"1,2\n')],
    ['binary content', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x1a])],
  ])('refuses %s', (_, content) => {
    expect(() => readCsvTable(content)).toThrow(CsvUnreadable);
  });
});
