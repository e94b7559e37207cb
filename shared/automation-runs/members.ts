// The step runner's view of enrolled contacts at send time: their current records (a deleted contact
// is absent) and whether they are still in the automation's target. Batch reads, 100 keys each.
import type { AutomationTarget } from '../automations/repository';
import { fieldsByName, toContactRecord } from '../contacts/items';
import type { ContactRecord } from '../contacts/record';
import { listCustomFields } from '../custom-fields/repository';
import { contactKey } from '../contacts/keys';
import { recipientItemsAt } from '../segments/recipients';
import { getItems } from '../table/records';

/** The contacts that still exist, by id. */
export async function currentContacts(accountId: number, contactIds: readonly number[]): Promise<Map<number, ContactRecord>> {
  const [items, customFields] = await Promise.all([getItems(contactIds.map((id) => contactKey(accountId, id))), listCustomFields(accountId)]);
  const fields = fieldsByName(customFields);
  return new Map(items.map((item) => toContactRecord(item, fields)).map((contact) => [contact.id, contact]));
}

/** The ids of the contacts that are still members of the target: of the contact type, or matched by the segment. */
export async function stillInTarget(accountId: number, target: AutomationTarget, contacts: readonly ContactRecord[]): Promise<Set<number>> {
  if (target.table === 'contacts_') return new Set(contacts.filter((contact) => contact.contact_type_id === target.id).map((contact) => contact.id));
  const { found } = await recipientItemsAt(accountId, target.id, [...new Set(contacts.map((contact) => contact.email.toLowerCase()))]);
  const matched = new Set<number>();
  for (const item of found.values()) {
    const contactId = (item.contact as { contact_id?: unknown } | undefined)?.contact_id;
    if (contactId !== undefined) matched.add(Number(contactId));
  }
  return new Set(contacts.filter((contact) => matched.has(contact.id)).map((contact) => contact.id));
}
