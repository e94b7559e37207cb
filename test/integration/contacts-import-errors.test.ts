// An import's row errors are kept however many messages its rows have: a chunk's errors are stored
// in as many items as DynamoDB's 400 KB item limit needs, so a file whose every cell is wrong still
// ends `completed` with its errors to read, never stuck `running` on a write the store refuses.
import { importChunkRows, runImportJob } from '../../shared/audience/import-runner';
import { createImportJob, getContactImport } from '../../shared/contacts/import-jobs';
import { tableRows } from '../../shared/contacts/import-rows';
import { readCsvTable } from '../../shared/csv/read-csv';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addField, addType } from '../support/contacts';

beforeAll(seedReferenceData);

test('a chunk whose rows all fail on many fields keeps every row\'s errors and the job completes', async () => {
  // Prepare: 24 number fields with long names, and a file of a chunk and a row whose every cell is wrong.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const fields = Array.from({ length: 24 }, (_, i) => `measurement_with_a_rather_long_descriptive_name_${String(i).padStart(2, '0')}`);
  for (const field of fields) await addField(keys, field, 'number');
  const rows = importChunkRows + 1;
  const lines = [['email', 'country', ...fields].join(',')];
  for (let i = 0; i < rows; i++) lines.push([`not-an-email-${i}`, 'US', ...fields.map(() => 'many')].join(','));
  const table = tableRows(await readCsvTable(Buffer.from(lines.join('\n'))));
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act
  const finished = await runImportJob(keys.account_id, job.id, table);

  // Assess: about 1 MB of messages for the first chunk, all kept, in row order.
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: 0, updated: 0, failed: rows });
  const status = await getContactImport(keys.account_id, job.id);
  expect(status.errors.map((error) => error.row)).toEqual(Array.from({ length: rows }, (_, i) => i + 2));
  expect(status.errors[0]?.messages).toHaveLength(20);
  expect(status.errors[0]?.messages.slice(0, 2)).toEqual(['The email field must be a valid email address.', `The ${fields[0]} field must be a number.`]);
  expect(status.errors[0]?.messages.at(-1)).toBe('And 6 more errors in this row.');
});
