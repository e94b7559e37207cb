// A CSV import never undoes what another request did to a contact between the import's lookup and
// its write: a contact deleted meanwhile stays deleted, and one moved to another type stays there.
// The race is made deterministic with the import's own hook, which runs after the lookup and before
// any write.
import { addContact, deleteContact, importContactRows, updateContact } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { getContact, type ContactFields } from '../../shared/contacts/repository';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { newAccount } from '../support/accounts';
import { addType, contactCounts } from '../support/contacts';
import { contactFields } from '../support/sending';

let us = 0;

beforeAll(async () => {
  await seedReferenceData();
  us = ((await findCountryByCode('US')) as { id: number }).id;
});

const fields = (contactTypeId: number, email: string, firstName: string): ContactFields => contactFields(contactTypeId, email, { first_name: firstName, country: String(us) });
const columns = new Set(['email', 'first_name', 'last_name']);
const changedMeanwhile = 'The contact was changed or deleted while the file was imported; import this row again.';

test('a contact deleted after the lookup is not brought back by the import', async () => {
  // Prepare: a contact the file updates.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const contact = await addContact(keys.account_id, fields(typeId, 'gone@example.com', 'Before'), {});
  const row: ImportRow = { line: 2, fields: fields(typeId, 'gone@example.com', 'From the file'), customValues: {} };

  // Act: the contact is deleted between the import's lookup and its write.
  const result = await importContactRows(keys.account_id, typeId, [row], columns, {
    onClassified: () => deleteContact(keys.account_id, contact.id),
  });

  // Assess: still deleted, the row refused, the type's count at zero.
  await expect(getContact(keys.account_id, contact.id)).rejects.toBeInstanceOf(RecordNotFound);
  expect(result).toEqual({ imported: 0, updated: 0, refused: [{ line: 2, field: 'email', message: changedMeanwhile }] });
  expect(await contactCounts(keys)).toEqual({ [typeId]: 0 });
});

test('a contact moved to another type after the lookup stays in its new type', async () => {
  const keys = await newAccount();
  const customers = await addType(keys, 'Customers');
  const partners = await addType(keys, 'Partners');
  const contact = await addContact(keys.account_id, fields(customers, 'moved@example.com', 'Before'), {});
  const row: ImportRow = { line: 5, fields: fields(customers, 'moved@example.com', 'From the file'), customValues: {} };

  const result = await importContactRows(keys.account_id, customers, [row], columns, {
    onClassified: async () => {
      await updateContact(keys.account_id, contact.id, fields(partners, 'moved@example.com', 'Moved'), {});
    },
  });

  const after = await getContact(keys.account_id, contact.id);
  expect({ type: after.contact_type_id, firstName: after.first_name }).toEqual({ type: partners, firstName: 'Moved' });
  expect(result).toEqual({ imported: 0, updated: 0, refused: [{ line: 5, field: 'email', message: changedMeanwhile }] });
  expect(await contactCounts(keys)).toEqual({ [customers]: 0, [partners]: 1 });
});

test('an unchanged contact is still updated by the import', async () => {
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const contact = await addContact(keys.account_id, fields(typeId, 'kept@example.com', 'Before'), {});

  const result = await importContactRows(keys.account_id, typeId, [{ line: 2, fields: fields(typeId, 'kept@example.com', 'After'), customValues: {} }], columns);

  expect(result).toEqual({ imported: 0, updated: 1, refused: [] });
  expect((await getContact(keys.account_id, contact.id)).first_name).toBe('After');
});
