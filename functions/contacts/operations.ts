// Contact operations: list, details, add, update, delete and bulk delete.
import type { ContactRecord } from '../../shared/contacts/record';
import { fieldsByName, fullName } from '../../shared/contacts/items';
import { getContactTypes, openContactType } from '../../shared/contact-types/repository';
import { getContact, listContactsPage } from '../../shared/contacts/repository';
import { ContactEmailTaken, ContactTypeUnavailable } from '../../shared/contacts/errors';
import { addContact, deleteContact, deleteContacts, updateContact } from '../../shared/audience/contact-service';
import { listCustomFields, type CustomField } from '../../shared/custom-fields/repository';
import { mapPage } from '../../shared/table/pages';
import { findCountry } from '../../shared/reference-data/repository';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { format, idList, integer, messages, validate } from '../../shared/validation';
import { readContactInput, type ContactInput } from '../../shared/contacts/input';

export const contactId = integer().required().min(1);

/**
 * Read add/update input for an account: country by id, custom fields as they are now. The field
 * definitions come back with it, so the write does not read them a second time.
 */
async function readInput(accountId: number, fields: Record<string, unknown>): Promise<ContactInput & { customFields: Map<string, CustomField>; doubleOptIn: boolean }> {
  const customFields = fieldsByName(await listCustomFields(accountId));
  // The type is read once: whether it exists, and whether it asks a new contact for double opt-in.
  let doubleOptIn = false;
  const input = await readContactInput(fields, {
    customFields,
    contactTypeExists: async (id) => {
      const type = await openContactType(accountId, id);
      doubleOptIn = type?.double_opt_in === 1;
      return type !== undefined;
    },
    resolveCountry: async (value) => (await findCountry(Number(value)))?.id,
    countryInput: 'id',
  });
  return { ...input, customFields, doubleOptIn };
}

/** The repository's refusals, in the validation shape of the field they concern. */
const contactRefusals = [
  on(ContactEmailTaken, () => ValidationError.of('email', format(messages.unique, { attribute: 'email' }))),
  on(ContactTypeUnavailable, () => ValidationError.of('contact_type_id', format(messages.exists, { attribute: 'contact type id' }))),
];

function withFullName(contact: ContactRecord) {
  return { ...contact, fullname: fullName(contact) };
}

/** The list shows the country's name, where details show its id. */
async function countryName(countryId: string): Promise<string> {
  return (await findCountry(Number(countryId)))?.name ?? countryId;
}

export const list = accountOperation(async ({ account, request }) => {
  const page = await listContactsPage(account.id, pageOf(validate(request.query, pageQuery())));
  // The page's types in one BatchGetItem, joined in memory: never one read per contact.
  const typesById = await getContactTypes(account.id, page.items.map((contact) => contact.contact_type_id));
  const rows = await mapPage(page, async (contact) => ({
    ...withFullName({ ...contact, country: await countryName(contact.country) }),
    contact_type: typesById.get(contact.contact_type_id) ?? null,
  }));
  return ok(withNextCursor('contacts', rows));
});

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_id: contactId });
  return ok({ contact: withFullName(await getContact(account.id, input.contact_id)) });
});

export const add = accountOperation(async ({ account, request }) => {
  const input = await readInput(account.id, request.fields);
  await addContact(account.id, input.fields, input.customValues, input.customFields, { doubleOptIn: input.doubleOptIn });
  return ok('Contact Added Successfully');
}, { errors: contactRefusals });

export const update = accountOperation(async ({ account, request }) => {
  const id = contactId.parse(request.fields.contact_id, 'contact_id');
  let input: Awaited<ReturnType<typeof readInput>> | undefined;
  let errors: FieldErrors = id.ok ? {} : { contact_id: [id.message] };
  try {
    input = await readInput(account.id, request.fields);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors = { ...errors, ...error.errors };
  }
  if (!id.ok || !input) throw new ValidationError(errors);
  await updateContact(account.id, id.value, input.fields, input.customValues, input.customFields);
  return ok('Contact Updated Successfully');
}, { errors: contactRefusals });

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_id: contactId });
  await deleteContact(account.id, input.contact_id);
  return ok('Deleted Successfully');
});

export const bulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds: idList() });
  await deleteContacts(account.id, input.strIds);
  return ok('Deleted Successfully');
});
