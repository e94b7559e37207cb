// Double opt-in through the API, for the tests of confirmation mails: a double opt-in type, pending
// contacts added to it, and a contact's details.
import { handler as contactTypesHandler } from '../../functions/contact-types/handler';
import { callContacts, type Account } from './contacts';
import { apiEvent, authHeaders, multipart, parsed, type Keys } from './events';
import { settlingJobs } from './jobs';
import { place } from './senders';

/** Calls the contact-types function as `keys`, running the jobs it queues before answering. */
export const contactTypesCall = settlingJobs(async (keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) =>
  parsed(await contactTypesHandler(apiEvent({ method, path, ...options, headers: { ...authHeaders(keys), ...options.headers } }))),
);

/** A double opt-in type whose opt-in sender is `senderId`, through the API; its id. */
export async function optInType(keys: Account, senderId: number, name = 'Newsletter'): Promise<number> {
  const added = await contactTypesCall(keys, 'POST', 'contacts-type/add', { body: multipart({ name, double_opt_in: 1, opt_in_sender_id: senderId }) });
  expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
  const list = await contactTypesCall(keys, 'GET', 'contacts-type');
  return Number((list.body.message as { contactTypes: { id: number; name: string }[] }).contactTypes.find((type) => type.name === name)?.id);
}

let serial = 0;

/** An address no other test uses: `<name>-<n>-<time>@<domain>`. */
export function optInAddress(name: string, domain: string): string {
  serial++;
  return `${name}-${serial}-${Date.now()}@${domain}`;
}

/** Add a contact through `contacts/add` (pending in a double opt-in type); its id. */
export async function addOptInContact(keys: Account, contactTypeId: number, email: string): Promise<number> {
  const result = await callContacts(keys, 'POST', 'contacts/add', { body: multipart({ contact_type_id: contactTypeId, email, first_name: 'Ada', country: place.usa }) });
  expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Contact Added Successfully' } });
  const list = await callContacts(keys, 'GET', 'contacts/list', { query: { limit: 100 } });
  return Number((list.body.message as { contacts: { id: number; email: string }[] }).contacts.find((contact) => contact.email === email)?.id);
}

/** A contact as `contacts/details` shows it. */
export async function contactOf(keys: Account, id: number): Promise<Record<string, unknown>> {
  const result = await callContacts(keys, 'GET', 'contacts/details', { query: { contact_id: id } });
  return (result.body.message as { contact: Record<string, unknown> }).contact;
}
