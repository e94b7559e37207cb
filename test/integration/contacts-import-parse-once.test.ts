// A queued import reads its file once, at the upload: each continuation of the job resumes from the
// rows stored then, however many messages the job takes (counted by wrapping the CSV reader), and
// the stored rows read back as they were parsed, across as many items as they take.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { handler as importHandler } from '../../functions/contact-import/handler';
import { lambdaContext } from '../../infra/local/lambda-context';
import { importChunkRows } from '../../shared/audience/import-runner';
import { loadImportRows } from '../../shared/contacts/import-file';
import { createImportJob, getContactImport } from '../../shared/contacts/import-jobs';
import { tableRows } from '../../shared/contacts/import-rows';
import { contactImportFileKey } from '../../shared/contacts/import-keys';
import { db } from '../../shared/table/client';
import { itemBytes } from '../../shared/table/item-size';
import { getItem } from '../../shared/table/records';
import * as csv from '../../shared/csv/read-csv';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addType, callContacts, contactCounts } from '../support/contacts';
import { multipart } from '../support/events';

jest.mock('../../shared/csv/read-csv', () => {
  const actual = jest.requireActual<typeof import('../../shared/csv/read-csv')>('../../shared/csv/read-csv');
  return { ...actual, readCsv: jest.fn(actual.readCsv), readCsvTable: jest.fn(actual.readCsvTable) };
});

beforeAll(seedReferenceData);

/** A Lambda context with time for one chunk: ample on the first ask, none after, so each message runs one chunk and requeues the job. */
function oneChunkContext(): Context {
  let asked = 0;
  return { ...lambdaContext('contact-import', randomUUID()), getRemainingTimeInMillis: () => (asked++ === 0 ? 60_000 : 0) };
}

test('a job that takes several messages reads its CSV once, at the upload', async () => {
  // Prepare: a file of three chunks (more than the 1,000 rows imported during the request), and a
  // consumer that runs one chunk per message.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const rows = 2 * importChunkRows + 100;
  const file = ['email,first_name,country', ...Array.from({ length: rows }, (_, i) => `person${i}@example.com,Person ${i},US`)].join('\n');
  let messages = 0;
  const unregister = registerLocalConsumer('imports', (event) => {
    messages++;
    return importHandler(event, oneChunkContext());
  });
  const reads = () => (csv.readCsv as jest.Mock).mock.calls.length + (csv.readCsvTable as jest.Mock).mock.calls.length;

  try {
    // Act
    const accepted = await callContacts(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: typeId, file: { filename: 'contacts.csv', content: file } }) });
    await localQueueIdle();

    // Assess: one read of the file for three messages, and every row imported once.
    expect(accepted).toEqual({ status: 200, body: { status: 'success', message: 'Imported Successfully', import_id: expect.any(Number) } });
    expect(messages).toBe(3);
    expect(reads()).toBe(1);
    expect(await getContactImport(keys.account_id, accepted.body.import_id as number)).toMatchObject({ status: 'completed', total_rows: rows, processed_rows: rows, imported: rows, failed: 0 });
    expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
  } finally {
    unregister();
  }
}, 120_000);

test('rows stored over several items read back as parsed, with the next row of each email', async () => {
  // Prepare: rows of about 1 KB (non-Latin-1 text in some), an email repeated across the file, and
  // short rows: about 3 MB, so several items.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const count = 3_000;
  const lines = ['email,first_name,note', ...Array.from({ length: count }, (_, i) => (i % 500 === 7 ? 'same@example.com' : i % 3 ? `p${i}@example.com,${'€'.repeat(i % 50)},${'n'.repeat(1000)}` : `p${i}@example.com`))];
  const parsed = tableRows(await csv.readCsvTable(Buffer.from(lines.join('\n'))));
  const job = await createImportJob(keys.account_id, typeId, parsed.count, parsed);

  // Act
  const stored = await loadImportRows(keys.account_id, job.id, job.total_rows);
  const read = await Promise.all(Array.from({ length: count }, (_, index) => stored.row(index)));

  // Assess
  expect(await getItem(contactImportFileKey(keys.account_id, job.id, 4))).toBeDefined();
  expect(stored.columns).toEqual(['email', 'first_name', 'note']);
  expect(read).toEqual(await Promise.all(Array.from({ length: count }, (_, index) => parsed.row(index))));
  expect(read[7]).toEqual({ line: 9, cells: ['same@example.com'], next: 507 });
  expect(read[2507]?.next).toBe(-1);
});

test('the pieces of a large file are written each to its own partition, within a partition\'s 1,000 write units', async () => {
  // Prepare: about 1.5 MB of rows, so several pieces of up to 300 KB.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const lines = ['email,note', ...Array.from({ length: 1_500 }, (_, i) => `p${i}@example.com,${'n'.repeat(1000)}`)];
  const parsed = tableRows(await csv.readCsvTable(Buffer.from(lines.join('\n'))));
  const written = new Map<string, number>();
  let items = 0;
  const name = `pieceWrites-${randomUUID()}`;
  db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, { PutRequest?: { Item?: Record<string, unknown> } }[]> };
      for (const request of Object.values(input.RequestItems ?? {}).flat()) {
        const item = request.PutRequest?.Item;
        if (item?.entity === 'contact-import-file') items++;
        if (item?.entity === 'contact-import-file') written.set(String(item.pk), (written.get(String(item.pk)) ?? 0) + itemBytes(item));
      }
      return next(args);
    },
    { step: 'initialize', name },
  );

  // Act
  let job: Awaited<ReturnType<typeof createImportJob>>;
  try {
    job = await createImportJob(keys.account_id, typeId, parsed.count, parsed);
  } finally {
    db().middlewareStack.remove(name);
  }

  // Assess: the header and each piece in a partition of its own, none taking 1,000 write units; they read back whole.
  expect(items).toBeGreaterThanOrEqual(6);
  expect(written.size).toBe(items);
  expect(Math.max(...written.values())).toBeLessThan(1_000 * 1024);
  const stored = await loadImportRows(keys.account_id, job.id, job.total_rows);
  expect(await stored.row(1_499)).toEqual(await parsed.row(1_499));
});
