// An import job reads and looks up its next chunk while the current chunk writes. What another
// request does to the next chunk's contacts in the meantime still wins, and the counts still say
// what the import did: the conditional writes decide, not the lookup made ahead.
import { addContact, deleteContact } from '../../shared/audience/contact-service';
import { importChunkRows, runImportJob } from '../../shared/audience/import-runner';
import { createImportJob, getContactImport } from '../../shared/contacts/import-jobs';
import { getContact } from '../../shared/contacts/repository';
import { tableRows } from '../../shared/contacts/import-rows';
import { readCsvTable } from '../../shared/csv/read-csv';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { newAccount } from '../support/accounts';
import { addType, contactCounts, listContacts } from '../support/contacts';
import { contactFields } from '../support/sending';

let us = 0;

beforeAll(async () => {
  await seedReferenceData();
  us = ((await findCountryByCode('US')) as { id: number }).id;
});

/** A file of one full chunk and two rows more: `person0@example.com` ... */
const rows = importChunkRows + 2;
const file = async () => {
  const lines = ['email,first_name,country'];
  for (let i = 0; i < rows; i++) lines.push(`person${i}@example.com,From the file ${i},US`);
  return tableRows(await readCsvTable(Buffer.from(lines.join('\n'))));
};
const lastEmail = `person${rows - 1}@example.com`;
const changedMeanwhile = 'The contact was changed or deleted while the file was imported; import this row again.';

test('a contact added to the type while the chunk before it writes is updated once and counted as updated', async () => {
  // Prepare: a job whose second chunk holds an email nobody has yet.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act: the email is added to the type after the first chunk is written, when the second chunk
  // has already been looked up (and found the email new).
  let added = 0;
  const finished = await runImportJob(keys.account_id, job.id, table, {
    afterChunkWritten: async (start) => {
      if (start === 0) added = (await addContact(keys.account_id, contactFields(typeId, lastEmail, { first_name: 'Added meanwhile', country: String(us) }), {})).id;
    },
  });

  // Assess: one contact of the email, with the file's values; counted as an update, and the type's count exact.
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows - 1, updated: 1, failed: 0 });
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
  const contacts = await listContacts(keys);
  expect(contacts).toHaveLength(rows);
  expect(contacts.filter((contact) => contact.email === lastEmail)).toEqual([expect.objectContaining({ id: added, first_name: `From the file ${rows - 1}` })]);
});

test('a contact deleted while the chunk before it writes stays deleted and its row is refused', async () => {
  // Prepare: the file's last row updates an existing contact.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const existing = await addContact(keys.account_id, contactFields(typeId, lastEmail, { first_name: 'Before', country: String(us) }), {});
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act: the contact is deleted after the second chunk looked it up, before it writes.
  const finished = await runImportJob(keys.account_id, job.id, table, {
    afterChunkWritten: async (start) => {
      if (start === 0) await deleteContact(keys.account_id, existing.id);
    },
  });

  // Assess: still deleted, the row refused and counted as failed, the type's count exact.
  await expect(getContact(keys.account_id, existing.id)).rejects.toBeInstanceOf(RecordNotFound);
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows - 1, updated: 0, failed: 1 });
  expect((await getContactImport(keys.account_id, job.id)).errors).toEqual([{ row: rows + 1, messages: [changedMeanwhile] }]);
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows - 1 });
  expect(await listContacts(keys)).toHaveLength(rows - 1);
});

test('the rows of a job are the same whether its chunks are looked up ahead or not', async () => {
  // Prepare: a job stopped after each chunk and run again (nothing read ahead is used across runs).
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act: one chunk per run, as a Lambda short of time would.
  let runs = 1;
  let state = await runImportJob(keys.account_id, job.id, table, { keepGoing: (longest) => longest === 0 });
  for (; state.status !== 'completed' && runs < 5; runs++) state = await runImportJob(keys.account_id, job.id, table, { keepGoing: (longest) => longest === 0 });

  // Assess: two runs, every row imported once with consecutive contacts, counts exact.
  expect(runs).toBe(2);
  expect(state).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows, updated: 0, failed: 0 });
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
  const contacts = await listContacts(keys);
  expect(new Set(contacts.map((contact) => contact.email)).size).toBe(rows);
});
