// Reading a chunk of rows is CPU work on promises that are already settled; an import job reads the
// next chunk while the current one writes, so the reader must let the event loop turn now and then
// (the replies of the writes, the job's checkpoint) instead of holding it for the whole chunk.
import { csvRowReader } from '../../shared/audience/csv-rows';
import { tableRows } from '../../shared/contacts/import-rows';
import { eventLoopTurnsDuring } from '../support/event-loop';

// No I/O: the account has no custom field and the only country is id 1 (code US).
jest.mock('../../shared/custom-fields/repository', () => ({ listCustomFields: async () => [] }));
jest.mock('../../shared/reference-data/repository', () => ({
  findCountry: async (id: number) => (id === 1 ? { id: 1, name: 'United States' } : undefined),
  findCountryByCode: async (code: string) => (code.toLowerCase() === 'us' ? { id: 1, name: 'United States' } : undefined),
}));

const rows = 500;
const csv = tableRows({
  columns: ['email', 'country'],
  rows: Array.from({ length: rows }, (_, index) => ({ line: index + 2, cells: [`person${index}@example.com`, 'US'] })),
});

it('lets the event loop turn while it reads a range of rows', async () => {
  // Prepare
  const reader = await csvRowReader(7, 3, csv);

  // Act: read the range, counting the turns of the event loop until it is read.
  const { result: range, turns } = await eventLoopTurnsDuring(() => reader.readRange(0, rows));

  // Assess: every row read, and the loop turned at least once per 50 rows while they were.
  expect(range).toEqual({ valid: expect.any(Array), errors: [] });
  expect(range.valid).toHaveLength(rows);
  expect(turns).toBeGreaterThanOrEqual(rows / 50 - 1);
});
