// Contact CSV sample and import through the Lambda handler on DynamoDB Local: the layout, upserts by
// email, row errors with line numbers, refused files, and large files as resumable import jobs.
import { randomUUID } from 'node:crypto';
import { handler as importHandler } from '../../functions/contact-import/handler';
import { handler } from '../../functions/contacts/handler';
import { lambdaContext } from '../../infra/local/lambda-context';
import { importChunkRows, runImportJob } from '../../shared/audience/import-runner';
import { tableRows } from '../../shared/contacts/import-rows';
import { readCsvTable } from '../../shared/csv/read-csv';
import { createImportJob } from '../../shared/contacts/import-jobs';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addField, addType, callContacts as call, contactCounts, listContacts, type Account } from '../support/contacts';
import { apiEvent, authHeaders, multipart } from '../support/events';

let us: { id: number; name: string };
let germany: { id: number; name: string };
let france: { id: number; name: string };

function upload(keys: Account, contactTypeId: number | string, content: string | Buffer, filename = 'contacts.csv') {
  return call(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: contactTypeId, file: { filename, content } }) });
}

/** The synchronous answer of a file of at most 1,000 rows: its counts and the job id its status keeps. */
function imported(counts: { imported: number; updated: number; errors?: { row: number; messages: string[] }[] }) {
  const errors = counts.errors ?? [];
  return {
    status: 200,
    body: { status: 'success', message: 'Imported Successfully', imported: counts.imported, updated: counts.updated, failed: errors.length, errors, import_id: expect.any(Number) },
  };
}

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * Rows of the big-file case. As a job, 10,000 rows took about 64 s on DynamoDB Local on two cores
 * (2,000 take about 10 s), too long for `npm test`'s budget; CSV_IMPORT_ROWS=10000 runs the full size by hand.
 */
const bulkRows = Number(process.env.CSV_IMPORT_ROWS ?? 2_000);

/** A file of `rows` contacts where every 100th row has a broken email; the file lines of those rows. */
function bulkFile(rows: number): { csv: string; badLines: number[] } {
  const lines = ['email,first_name,country,city,score'];
  const badLines: number[] = [];
  for (let i = 0; i < rows; i++) {
    const bad = i % 100 === 99;
    if (bad) badLines.push(i + 2);
    lines.push(`${bad ? `broken-${i}` : `person${i}@example.com`},Person ${i},${i % 2 ? 'US' : 'DE'},City ${i % 7},${i}`);
  }
  return { csv: lines.join('\r\n'), badLines };
}

/** A header of `columns` names (the first `email`) over `rows` one-cell rows. */
function wideFile(columns: number, rows: number): string {
  const header = ['email', ...Array.from({ length: columns - 1 }, (_, i) => `c${i}`)].join(',');
  return [header, ...Array.from({ length: rows }, (_, i) => `x${i}@example.com`)].join('\n');
}

function status(keys: Account | undefined, id: number) {
  return call(keys, 'GET', 'contacts/import-status', { query: { id } });
}

/** Poll contacts/import-status until the job is completed or failed. */
async function waitForImport(keys: Account, id: number, timeoutMs = 170_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await status(keys, id);
    const job = (result.body.message as { import: Record<string, unknown> }).import;
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`import ${id} still ${String(job.status)}: ${JSON.stringify(job)}`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

describe('contact CSV', () => {
  let owner: Account;
  let ownerType: number;

  beforeAll(async () => {
    await seedReferenceData();
    us = (await findCountryByCode('US')) as typeof us;
    germany = (await findCountryByCode('DE')) as typeof germany;
    france = (await findCountryByCode('FR')) as typeof france;
    owner = await newAccount('Owner');
    ownerType = await addType(owner, 'Everyone');
  });

  describe('contacts/csv-sample/download', () => {
    it('downloads the import layout with the custom fields and one example row', async () => {
      const keys = await newAccount();
      await addField(keys, 'age', 'number');
      await addField(keys, 'joined_at', 'datetime-local');
      const result = await handler(apiEvent({ method: 'GET', path: 'contacts/csv-sample/download', headers: authHeaders(keys) }));
      expect(result.statusCode).toBe(200);
      expect(result.headers).toEqual({
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="contacts-sample.csv"',
        'x-ratelimit-limit': expect.any(String),
        'x-ratelimit-remaining': expect.any(String),
      });
      expect(result.body).toBe(
        'first_name,last_name,email,alt_email,country,state,city,address_line1,address_line2,state_province_region,postal_code,age,joined_at\r\n' +
          'Jane,Doe,jane.doe@example.com,jane@example.org,US,California,San Francisco,1 Market Street,Suite 100,CA,94105,42,2024-01-31T09:30\r\n',
      );
    });

    it('is a file the import accepts as it is', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Sample');
      await addField(keys, 'notes', 'text');
      const sample = await handler(apiEvent({ method: 'GET', path: 'contacts/csv-sample/download', headers: authHeaders(keys) }));
      expect(await upload(keys, type, sample.body as string)).toEqual(imported({ imported: 1, updated: 0 }));
      expect(await listContacts(keys)).toEqual([
        expect.objectContaining({ email: 'jane.doe@example.com', country: 'United States', custom_field: { notes: { field_name: 'notes', field_value: 'Sample text' } } }),
      ]);
    });
  });

  describe('contacts/upload-csv', () => {
    it('imports rows by header name, ignoring case, spaces and unknown columns', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Import');
      const csv = ' First_Name ,EMAIL,Country,favourite_colour,city\nAda,ada@example.com,US,blue,London\nBob,bob@example.com,DE,,\n';
      expect(await upload(keys, type, csv)).toEqual(imported({ imported: 2, updated: 0 }));
      const contacts = await listContacts(keys);
      expect(contacts).toEqual([
        expect.objectContaining({ id: 1, contact_type_id: type, first_name: 'Ada', email: 'ada@example.com', country: us.name, city: 'London', fullname: 'Ada' }),
        expect.objectContaining({ id: 2, first_name: 'Bob', country: germany.name, city: '' }),
      ]);
      expect(await contactCounts(keys)).toEqual({ [type]: 2 });
    });

    it('reads a BOM, CRLF line ends, quoted commas and line breaks, and skips blank lines, numbering rows by file line', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Import');
      const csv = '\uFEFFemail,country,address_line1,last_name\r\n' +
        '"quoted@example.com",US,"1 Main St, Apt 2","Smith, Jr."\r\n' +
        '\r\n' +
        'broken,US,,\r\n' +
        'multi@example.com,US,"line one\r\nline two",X\r\n' +
        'bad-too,US,,\r\n' +
        '"multi\nline@",US,,\r\n';
      expect(await upload(keys, type, csv)).toEqual(
        imported({
          imported: 2,
          updated: 0,
          errors: [
            { row: 4, messages: ['The email field must be a valid email address.'] },
            { row: 7, messages: ['The email field must be a valid email address.'] },
            { row: 8, messages: ['The email field must be a valid email address.'] },
          ],
        }),
      );
      const contacts = await listContacts(keys);
      expect(contacts[0]).toMatchObject({ email: 'quoted@example.com', address_line1: '1 Main St, Apt 2', last_name: 'Smith, Jr.' });
      expect(contacts[1]).toMatchObject({ email: 'multi@example.com', address_line1: 'line one\nline two' });
    });

    it('takes a country as an id, an ISO2 or ISO3 code or a name, and reports an unknown one', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Countries');
      const csv = `email,country\na@example.com,${us.id}\nb@example.com,de\nc@example.com,FRA\nd@example.com, united states \ne@example.com,Atlantis\nf@example.com,\n`;
      expect(await upload(keys, type, csv)).toEqual(
        imported({
          imported: 4,
          updated: 0,
          errors: [
            { row: 6, messages: ['The selected country is invalid.'] },
            { row: 7, messages: ['The country field is required.'] },
          ],
        }),
      );
      expect((await listContacts(keys)).map((contact) => contact.country)).toEqual([us.name, germany.name, france.name, us.name]);
    });

    it('reads custom field columns by name and checks their values by type', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Custom');
      await addField(keys, 'Age', 'number');
      await addField(keys, 'joined', 'datetime-local');
      const csv = 'email,country,age,JOINED\na@example.com,US,41,2024-02-03T04:05\nb@example.com,US,old,2024-02-03\nc@example.com,US,,\n';
      expect(await upload(keys, type, csv)).toEqual(
        imported({
          imported: 2,
          updated: 0,
          errors: [{ row: 3, messages: ['The Age field must be a number.', 'The joined field must match the format Y-m-d\\TH:i.'] }],
        }),
      );
      const contacts = await listContacts(keys);
      expect(contacts[0]?.custom_field).toEqual({ Age: { field_name: 'Age', field_value: '41' }, joined: { field_name: 'joined', field_value: '2024-02-03T04:05' } });
      expect(contacts[1]?.custom_field).toEqual({ Age: { field_name: 'Age', field_value: null }, joined: { field_name: 'joined', field_value: null } });
    });

    it('reports every problem of a row together', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Rows');
      const csv = `email,country,alt_email,first_name\n,Nowhere,bad,${'x'.repeat(256)}\n`;
      expect(await upload(keys, type, csv)).toEqual(
        imported({
          imported: 0,
          updated: 0,
          errors: [
            {
              row: 2,
              messages: [
                'The first name field must not be greater than 255 characters.',
                'The email field is required.',
                'The alt email field must be a valid email address.',
                'The selected country is invalid.',
              ],
            },
          ],
        }),
      );
      expect(await contactCounts(keys)).toEqual({ [type]: 0 });
    });

    it('keeps the last row of an email that appears twice in the file', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Dupes');
      const csv = 'email,country,first_name\ndup@example.com,US,First\nother@example.com,US,Other\nDUP@example.com,US,Last\n';
      expect(await upload(keys, type, csv)).toEqual(imported({ imported: 2, updated: 0 }));
      const contacts = await listContacts(keys);
      expect(contacts.map((contact) => [contact.email, contact.first_name])).toEqual([
        ['other@example.com', 'Other'],
        ['DUP@example.com', 'Last'],
      ]);
      expect(await contactCounts(keys)).toEqual({ [type]: 2 });
    });

    it('updates on re-import instead of duplicating, keeping columns the file lacks', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Again');
      const other = await addType(keys, 'Other type');
      await addField(keys, 'plan', 'text');
      await upload(keys, type, 'email,country,first_name,city,plan\nada@example.com,US,Ada,London,gold\nbob@example.com,US,Bob,Paris,silver\n');
      const first = await listContacts(keys);
      const again = await upload(keys, type, 'Email,country,first_name\nADA@example.com,DE,Ada Augusta\nnew@example.com,US,New\n');
      expect(again).toEqual(imported({ imported: 1, updated: 1 }));
      const contacts = await listContacts(keys);
      expect(contacts).toHaveLength(3);
      expect(contacts[0]).toMatchObject({
        id: 1,
        email: 'ADA@example.com',
        first_name: 'Ada Augusta',
        country: germany.name,
        city: 'London',
        custom_field: { plan: { field_name: 'plan', field_value: 'gold' } },
        created_at: first[0]?.created_at,
      });
      expect(await contactCounts(keys)).toEqual({ [type]: 3, [other]: 0 });
      // The same emails in another type are other contacts.
      expect(await upload(keys, other, 'email,country\nada@example.com,US\n')).toEqual(imported({ imported: 1, updated: 0 }));
      expect(await contactCounts(keys)).toEqual({ [type]: 3, [other]: 1 });
    });

    it('imports nothing but succeeds for a file with only a header', async () => {
      expect(await upload(owner, ownerType, 'email,country\r\n')).toEqual(imported({ imported: 0, updated: 0 }));
    });

    it.each([
      ['a file without an email column', 'name,country\nAda,US\n', 'contacts.csv', 'The file field must contain an email column.'],
      ['an empty file', '', 'contacts.csv', 'The file field must contain an email column.'],
      ['a file of blank lines', '\r\n\r\n', 'contacts.csv', 'The file field must contain an email column.'],
      ['a file that is not CSV', 'email,country\n"unterminated@example.com,US\n', 'contacts.csv', 'The file field must be a valid CSV file.'],
      ['binary content', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]), 'contacts.csv', 'The file field must be a valid CSV file.'],
      ['a file of another type', 'email,country\na@example.com,US\n', 'contacts.xlsx', 'The file field must be a file of type: csv.'],
      ['a file without an extension', 'email,country\na@example.com,US\n', 'contacts', 'The file field must be a file of type: csv.'],
      ['a header of 20,000 columns over 20,000 rows', wideFile(20_000, 20_000), 'contacts.csv', 'The file field must not have more than 500 columns.'],
      ['a header of 501 columns', wideFile(501, 2), 'contacts.csv', 'The file field must not have more than 500 columns.'],
      ['a row of 501 cells', `email\na@example.com\n${','.repeat(500)}x\n`, 'contacts.csv', 'The file field must not have more than 500 columns.'],
      ['50,001 rows', wideFile(1, 50_001), 'contacts.csv', 'The file field must not have more than 50000 rows.'],
      ['a row larger than 128 KB', `email,note\na@example.com,"${'n'.repeat(128 * 1024)}"\n`, 'contacts.csv', 'The file field must not have a row larger than 128 kilobytes.'],
      ['a file larger than 4 MB', Buffer.concat([Buffer.from('email\n'), Buffer.alloc(4 * 1024 * 1024, 'a@example.com\n')]), 'contacts.csv', 'The file field must not be greater than 4096 kilobytes.'],
    ])('refuses %s and writes nothing', async (_, content, filename, message) => {
      const keys = await newAccount();
      const type = await addType(keys, 'Refused');
      expect(await upload(keys, type, content, filename)).toEqual({ status: 422, body: { status: 'failed', errors: { file: [message] } } });
      expect(await listContacts(keys)).toEqual([]);
      expect(await contactCounts(keys)).toEqual({ [type]: 0 });
    });

    it('lists each missing field', async () => {
      expect(await call(owner, 'POST', 'contacts/upload-csv', { body: multipart({}) })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { contact_type_id: ['The contact type id field is required.'], file: ['The file field is required.'] } },
      });
    });

    it("refuses an unknown contact type and another account's", async () => {
      const stranger = await newAccount();
      const invalid = { status: 422, body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } } };
      expect(await upload(stranger, ownerType, 'email,country\na@example.com,US\n')).toEqual(invalid);
      expect(await upload(owner, 999, 'email,country\na@example.com,US\n')).toEqual(invalid);
      expect(await listContacts(stranger)).toEqual([]);
    });
  });

  describe('import jobs (files of more than 1,000 rows)', () => {
    let unregister: () => void;

    beforeAll(() => {
      // A short Lambda budget, so a job also goes back on the queue and continues from its checkpoint.
      unregister = registerLocalConsumer('imports', (event) => importHandler(event, lambdaContext('contact-import', randomUUID(), 10_000)));
    });

    afterAll(() => unregister());

    it(`imports ${bulkRows.toLocaleString('en')} rows with ${bulkRows / 100} bad ones as a job and reports progress, counts and the bad rows`, async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Bulk');
      await addField(keys, 'score', 'number');
      const { csv, badLines } = bulkFile(bulkRows);
      const started = Date.now();
      const accepted = await upload(keys, type, csv);
      expect(accepted).toEqual({ status: 200, body: { status: 'success', message: 'Imported Successfully', import_id: expect.any(Number) } });
      const importId = accepted.body.import_id as number;
      const finished = await waitForImport(keys, importId);
      console.info(`${bulkRows}-row CSV import job took ${Date.now() - started} ms`);
      expect(finished).toEqual({
        id: importId,
        status: 'completed',
        contact_type_id: type,
        total_rows: bulkRows,
        processed_rows: bulkRows,
        imported: bulkRows - badLines.length,
        updated: 0,
        failed: badLines.length,
        errors: badLines.map((row) => ({ row, messages: ['The email field must be a valid email address.'] })),
        created_at: expect.stringMatching(timestamp),
        updated_at: expect.stringMatching(timestamp),
      });
      expect(await contactCounts(keys)).toEqual({ [type]: bulkRows - badLines.length });
      const contacts = await listContacts(keys);
      expect(contacts).toHaveLength(bulkRows - badLines.length);
      expect(new Set(contacts.map((contact) => contact.id)).size).toBe(bulkRows - badLines.length);
      expect(contacts[0]).toMatchObject({ email: 'person0@example.com', country: germany.name, custom_field: { score: { field_name: 'score', field_value: '0' } } });
    }, 180_000);

    it('resumes after a crash between writing a chunk and its checkpoint, counting no row twice', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Resumed');
      // Two contacts the file updates, in its second chunk.
      await upload(keys, type, 'email,country\nperson600@example.com,US\nperson601@example.com,US\n');
      const { csv, badLines } = bulkFile(1_200);
      const table = tableRows(await readCsvTable(Buffer.from(csv)));
      const job = await createImportJob(keys.account_id, type, table.count);
      const crash = new Error('crashed before the checkpoint');
      await expect(
        runImportJob(keys.account_id, job.id, table, {
          afterChunkWritten: async (start) => {
            if (start === importChunkRows) throw crash;
          },
        }),
      ).rejects.toBe(crash);
      const halfway = await status(keys, job.id);
      expect(halfway.body.message).toMatchObject({ import: { status: 'running', processed_rows: importChunkRows, imported: importChunkRows - 5, updated: 0, failed: 5 } });
      // The run after the crash writes the second chunk again and counts it once.
      const finished = await runImportJob(keys.account_id, job.id, table);
      expect(finished).toMatchObject({ status: 'completed', processed_rows: 1_200, imported: 1_200 - badLines.length - 2, updated: 2, failed: badLines.length });
      expect((await status(keys, job.id)).body.message).toMatchObject({
        import: { imported: 1_200 - badLines.length - 2, updated: 2, failed: badLines.length, errors: badLines.map((row) => ({ row, messages: expect.any(Array) })) },
      });
      expect(await contactCounts(keys)).toEqual({ [type]: 1_200 - badLines.length });
      expect(await listContacts(keys)).toHaveLength(1_200 - badLines.length);
      // Running a completed job again changes nothing.
      expect(await runImportJob(keys.account_id, job.id, table)).toMatchObject({ imported: 1_200 - badLines.length - 2, updated: 2 });
      expect(await contactCounts(keys)).toEqual({ [type]: 1_200 - badLines.length });
    }, 120_000);

    it("answers a small file's import_id with its status too", async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Small');
      const result = await upload(keys, type, 'email,country\na@example.com,US\nbad,US\n');
      const importId = result.body.import_id as number;
      expect((await status(keys, importId)).body.message).toEqual({
        import: expect.objectContaining({ id: importId, status: 'completed', total_rows: 2, processed_rows: 2, imported: 1, updated: 0, failed: 1, errors: [{ row: 3, messages: ['The email field must be a valid email address.'] }] }),
      });
    });

    it("answers Record Not Found for an unknown import and another account's, and validates the id", async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Mine');
      const importId = (await upload(keys, type, 'email,country\na@example.com,US\n')).body.import_id as number;
      const stranger = await newAccount();
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
      expect(await status(stranger, importId)).toEqual(notFound);
      expect(await status(keys, importId + 100)).toEqual(notFound);
      expect(await call(keys, 'GET', 'contacts/import-status')).toEqual({ status: 422, body: { status: 'failed', errors: { id: ['The id field is required.'] } } });
      expect(await call(keys, 'GET', 'contacts/import-status', { query: { id: 'abc' } })).toEqual({ status: 422, body: { status: 'failed', errors: { id: ['The id field must be an integer.'] } } });
      expect(await call(undefined, 'GET', 'contacts/import-status', { query: { id: importId } })).toMatchObject({ status: 401 });
    });
  });

  describe('credentials', () => {
    it('answers 401 without credentials and writes nothing', async () => {
      const result = await call(undefined, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: ownerType, file: { filename: 'a.csv', content: 'email,country\na@example.com,US' } }) });
      expect(result).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
      expect(await contactCounts(owner)).toEqual({ [ownerType]: 0 });
    });
  });
});
