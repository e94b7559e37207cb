// The rows of a contact CSV file as the import reads them: which row of a repeated email is kept,
// which rows are refused with which messages and in what order, in any chunking, and in linear time.
import { csvRowReader } from '../../shared/audience/csv-rows';
import { tableRows, type ImportRows } from '../../shared/contacts/import-rows';

// No I/O: the account has one custom field and the only country is id 1 (code US).
jest.mock('../../shared/custom-fields/repository', () => ({
  listCustomFields: async () => [
    { id: 1, user_id: 7, field_name: 'score', field_type: 'number', is_reserved: 0, created_at: '', updated_at: '' },
  ],
}));
jest.mock('../../shared/reference-data/repository', () => ({
  findCountry: async (id: number) => (id === 1 ? { id: 1, name: 'United States' } : undefined),
  findCountryByCode: async (code: string) => (code.toLowerCase() === 'us' ? { id: 1, name: 'United States' } : undefined),
}));

const columns = ['email', 'country', 'first_name', 'alt_email', 'score'];

/** A file of rows given as cells by column (absent cells left out, as a short row leaves them), numbered from line 2. */
function table(rows: Record<string, string>[]): ImportRows {
  return tableRows({
    columns,
    rows: rows.map((cells, index) => {
      const row: string[] = [];
      columns.forEach((column, position) => {
        if (column in cells) row[position] = cells[column] as string;
      });
      return { line: index + 2, cells: row };
    }),
  });
}

/** Every row of the file read in chunks of `chunk` rows, as an import job reads it. */
async function readAll(csv: ImportRows, chunk: number) {
  const reader = await csvRowReader(7, 3, csv);
  const valid: { line: number; email: string; first_name: string; score: string | null | undefined }[] = [];
  const errors: { row: number; messages: string[] }[] = [];
  for (let start = 0; start < csv.count; start += chunk) {
    const range = await reader.readRange(start, start + chunk);
    valid.push(...range.valid.map((row) => ({ line: row.line, email: row.fields.email, first_name: row.fields.first_name, score: row.customValues.score })));
    errors.push(...range.errors);
    // The job writes each chunk before the next; the turn of the event loop also lets jest's timeout fire.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { valid, errors };
}

describe('csvRowReader', () => {
  // Lines 2..17. The key of an email is its trimmed, lower-cased cell, whether or not the row is valid.
  const mixed = table([
    { email: 'a@example.com', country: 'US', first_name: 'A first' }, // 2: replaced by line 5
    { email: 'b@example.com', country: 'Nowhere', first_name: 'B bad' }, // 3: refused
    { email: 'A@EXAMPLE.COM', country: 'US', alt_email: 'bad' }, // 4: refused; does not replace line 2 itself
    { email: ' a@example.com ', country: '1', first_name: 'A last valid' }, // 5: kept, line 7 is refused
    { email: 'b@example.com', country: 'us', first_name: 'B good', score: '12' }, // 6: kept
    { email: 'a@example.com', country: 'US', score: 'many' }, // 7: refused, so line 5 stays
    { email: 'c@example.com', country: 'US', first_name: 'C one' }, // 8: replaced by line 9
    { email: 'C@example.com', country: 'US', first_name: 'C two' }, // 9: replaced by line 13
    { country: 'US', first_name: 'No email' }, // 10: refused
    { email: 'broken', country: 'US' }, // 11: refused
    { email: 'BROKEN', country: 'US' }, // 12: refused (same key as line 11)
    { email: 'c@example.com', country: 'US', first_name: 'C three' }, // 13: kept
    { email: 'd@example.com', country: 'US', first_name: 'D only' }, // 14: kept
    { email: '', country: '', first_name: 'x'.repeat(256) }, // 15: refused, every message
    { email: 'e@example.com', country: 'US', first_name: 'E', score: '1' }, // 16: replaced by line 17
    { email: 'e@example.com', country: 'US', first_name: 'E later', score: '2' }, // 17: kept
  ]);

  const expected = {
    valid: [
      { line: 5, email: 'a@example.com', first_name: 'A last valid', score: undefined },
      { line: 6, email: 'b@example.com', first_name: 'B good', score: '12' },
      { line: 13, email: 'c@example.com', first_name: 'C three', score: undefined },
      { line: 14, email: 'd@example.com', first_name: 'D only', score: undefined },
      { line: 17, email: 'e@example.com', first_name: 'E later', score: '2' },
    ],
    errors: [
      { row: 3, messages: ['The selected country is invalid.'] },
      { row: 4, messages: ['The alt email field must be a valid email address.'] },
      { row: 7, messages: ['The score field must be a number.'] },
      { row: 10, messages: ['The email field is required.'] },
      { row: 11, messages: ['The email field must be a valid email address.'] },
      { row: 12, messages: ['The email field must be a valid email address.'] },
      {
        row: 15,
        messages: ['The first name field must not be greater than 255 characters.', 'The email field is required.', 'The country field is required.'],
      },
    ],
  };

  it.each([1, 2, 3, 5, 500])('keeps the last valid row of each email and refuses the bad rows in order, in chunks of %i rows', async (chunk) => {
    expect(await readAll(mixed, chunk)).toEqual(expected);
  });

  it('answers the same rows when a range is read again (a replayed chunk)', async () => {
    const reader = await csvRowReader(7, 3, mixed);
    const first = await reader.readRange(0, 6);
    const again = await reader.readRange(0, 6);
    expect(again).toEqual(first);
    expect(first.valid.map((row) => row.line)).toEqual([5, 6]);
    expect(first.errors.map((error) => error.row)).toEqual([3, 4, 7]);
  });

  it('reads rows past the end of the file as nothing', async () => {
    const reader = await csvRowReader(7, 3, mixed);
    expect(await reader.readRange(15, 40)).toEqual({ valid: [{ line: 17, fields: expect.objectContaining({ email: 'e@example.com' }), customValues: { score: '2' } }], errors: [] });
    expect(await reader.readRange(40, 80)).toEqual({ valid: [], errors: [] });
  });

  // Work quadratic in the rows of one address (40,000 took 14 s in production) takes minutes of CPU for
  // 100,000 rows and fails on the per-test timeout; linear work takes 3 to 5 s of CPU. (At 200,000 rows
  // quadratic code blocks the event loop for a quarter of an hour before the timeout can even report.)
  it('reads 100,000 rows of one address in linear time, keeping the last', async () => {
    const rows = 100_000;
    const same = table(Array.from({ length: rows }, (_, i) => ({ email: i % 2 ? 'same@example.com' : 'SAME@example.com', country: 'US', first_name: `Row ${i}` })));
    const { valid, errors } = await readAll(same, 500);
    expect(errors).toEqual([]);
    expect(valid).toEqual([{ line: rows + 1, email: 'same@example.com', first_name: `Row ${rows - 1}`, score: undefined }]);
  }, 30_000);

  it('reads 100,000 rows of one address in linear time when only the first is valid', async () => {
    const rows = 100_000;
    const same = table(Array.from({ length: rows }, (_, i) => ({ email: 'same@example.com', country: i === 0 ? 'US' : 'Nowhere' })));
    const { valid, errors } = await readAll(same, 500);
    expect(valid.map((row) => row.line)).toEqual([2]);
    expect(errors).toHaveLength(rows - 1);
    expect(errors[0]).toEqual({ row: 3, messages: ['The selected country is invalid.'] });
    expect(errors.at(-1)?.row).toBe(rows + 1);
  }, 30_000);
});
