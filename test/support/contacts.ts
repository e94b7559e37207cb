// Calls into the contacts, contact-types and custom-fields handlers, shared by the contacts test files.
import { handler as contactsHandler } from '../../functions/contacts/handler';
import { handler as contactTypesHandler } from '../../functions/contact-types/handler';
import { handler as customFieldsHandler } from '../../functions/custom-fields/handler';
import { apiEvent, authHeaders, multipart, parsed, type Keys } from './events';
import { accountIdOf, jobsSettled } from './jobs';

export type Account = Keys & { account_id: number };
type CallOptions = Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'>;

export async function callContacts(keys: Keys | undefined, method: string, path: string, options: CallOptions = {}) {
  return parsed(await contactsHandler(apiEvent({ method, path, ...options, headers: { ...(keys ? authHeaders(keys) : {}), ...options.headers } })));
}

/** Add a contact type through the API; its id. */
export async function addType(keys: Account, name: string): Promise<number> {
  await contactTypesHandler(apiEvent({ method: 'POST', path: 'contacts-type/add', headers: authHeaders(keys), body: multipart({ name }) }));
  const list = parsed(await contactTypesHandler(apiEvent({ method: 'GET', path: 'contacts-type', headers: authHeaders(keys) })));
  const types = (list.body.message as { contactTypes: { id: number; name: string }[] }).contactTypes;
  return (types.filter((type) => type.name === name).pop() as { id: number }).id;
}

/** The account's contact types with their counts, by id. */
export async function contactCounts(keys: Keys): Promise<Record<number, number>> {
  const list = parsed(await contactTypesHandler(apiEvent({ method: 'GET', path: 'contacts-type', headers: authHeaders(keys) })));
  const types = (list.body.message as { contactTypes: { id: number; contacts_count: number }[] }).contactTypes;
  return Object.fromEntries(types.map((type) => [type.id, type.contacts_count]));
}

/** Delete a contact type through the API; returns once its background delete has finished. */
export async function deleteType(keys: Keys, contactTypeId: number) {
  const result = parsed(await contactTypesHandler(apiEvent({ method: 'DELETE', path: 'contacts-type/delete', headers: authHeaders(keys), query: { contact_type_id: contactTypeId } })));
  const accountId = accountIdOf(keys);
  if (accountId !== undefined) await jobsSettled(accountId);
  return result;
}

export async function addField(keys: Keys, fieldName: string, fieldType: string): Promise<void> {
  const result = parsed(
    await customFieldsHandler(apiEvent({ method: 'POST', path: 'custom-fields/save', headers: authHeaders(keys), body: multipart({ field_name: fieldName, field_type: fieldType }) })),
  );
  if (result.status !== 200) throw new Error(`custom field ${fieldName} not added: ${JSON.stringify(result.body)}`);
}

export async function deleteField(keys: Keys, id: number) {
  return parsed(await customFieldsHandler(apiEvent({ method: 'DELETE', path: 'custom-fields/delete', headers: authHeaders(keys), query: { id } })));
}

/** Every contact of the account, following next_cursor page after page. */
export async function listContacts(keys: Keys): Promise<Record<string, unknown>[]> {
  const contacts: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const { body } = await callContacts(keys, 'GET', 'contacts/list', { query: cursor ? { cursor } : {} });
    const message = body.message as { contacts: Record<string, unknown>[]; next_cursor: string | null };
    contacts.push(...message.contacts);
    cursor = message.next_cursor;
  } while (cursor);
  return contacts;
}

export async function contactDetails(keys: Keys, contactId: number): Promise<Record<string, unknown>> {
  const { body } = await callContacts(keys, 'GET', 'contacts/details', { query: { contact_id: contactId } });
  return (body.message as { contact: Record<string, unknown> }).contact;
}
