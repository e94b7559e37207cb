// How a contact is stored and read back: the item built from validated input, and the record read
// from an item with only the custom values of fields that still exist.
import type { ContactRecord, CustomFieldValue } from './record';
import type { CustomField } from '../custom-fields/repository';
import { CONTACT, contactKey, contactOfTypeIndexKey } from './keys';
import { itemBytes, maxItemBytes } from '../table/item-size';
import { withoutKeys, type Item } from '../table/records';

/** The standard contact fields after validation; `country` is the country id as text. */
export type ContactFields = Omit<ContactRecord, 'id' | 'user_id' | 'custom_field' | 'subscription_status' | 'confirmed_at' | 'deleted_at' | 'created_at' | 'updated_at'>;

/** A contact's consent: set when it is created, changed only by its confirmation. */
export type Subscription = Pick<ContactRecord, 'subscription_status' | 'confirmed_at'>;

/** The consent of a contact that needs no confirmation (and of every contact stored before double opt-in). */
export const confirmedWithoutAsking: Subscription = { subscription_status: 'confirmed', confirmed_at: null };

/** Custom values by field name, already checked against the field's type; null clears a value. */
export type CustomValues = Record<string, string | null>;

/** Which field id each stored custom value belongs to, so a deleted-then-recreated name starts empty. */
type CustomFieldIds = Record<string, number>;

/** The account's custom fields by name, for reading and writing values. */
export function fieldsByName(customFields: readonly CustomField[]): Map<string, CustomField> {
  return new Map(customFields.map((field) => [field.field_name, field]));
}

/** The custom values of an item whose field still exists with the same id; null when none. */
function visibleCustomValues(item: Item, fields: Map<string, CustomField>): Record<string, CustomFieldValue> | null {
  const stored = (item.custom_field ?? null) as Record<string, CustomFieldValue> | null;
  const ids = (item.custom_field_ids ?? {}) as CustomFieldIds;
  if (!stored) return null;
  const visible: Record<string, CustomFieldValue> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (fields.get(name)?.id === ids[name]) visible[name] = { field_name: name, field_value: value.field_value ?? null };
  }
  return Object.keys(visible).length > 0 ? visible : null;
}

/** The contact record of a stored item, in the spec's field order. */
export function toContactRecord(item: Item, fields: Map<string, CustomField>): ContactRecord {
  const stored = withoutKeys<ContactRecord>(item);
  return {
    id: Number(stored.id),
    user_id: Number(stored.user_id),
    contact_type_id: Number(stored.contact_type_id),
    first_name: stored.first_name ?? '',
    last_name: stored.last_name ?? '',
    email: stored.email,
    alt_email: stored.alt_email ?? null,
    country: String(stored.country ?? ''),
    state: stored.state ?? '',
    city: stored.city ?? '',
    address_line1: stored.address_line1 ?? '',
    address_line2: stored.address_line2 ?? '',
    state_province_region: stored.state_province_region ?? '',
    postal_code: stored.postal_code ?? '',
    custom_field: visibleCustomValues(item, fields),
    subscription_status: stored.subscription_status === 'pending' ? 'pending' : 'confirmed',
    confirmed_at: stored.confirmed_at ?? null,
    deleted_at: stored.deleted_at ?? null,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}

/**
 * A contact after a write: the given fields, and the custom values of `before` (still-existing
 * fields only, which drops values of deleted fields) overlaid with the given ones. Its consent is
 * `before`'s; a new contact's is `subscription` (confirmed unless its type asks for double opt-in).
 */
export function contactAfterWrite(
  accountId: number,
  id: number,
  input: ContactFields,
  customValues: CustomValues,
  fields: Map<string, CustomField>,
  now: string,
  before?: ContactRecord,
  subscription: Subscription = confirmedWithoutAsking,
): ContactRecord {
  const custom: Record<string, CustomFieldValue> = { ...(before?.custom_field ?? {}) };
  for (const [name, value] of Object.entries(customValues)) {
    if (fields.has(name)) custom[name] = { field_name: name, field_value: value };
  }
  return {
    id,
    user_id: accountId,
    ...input,
    custom_field: Object.keys(custom).length > 0 ? custom : null,
    subscription_status: before?.subscription_status ?? subscription.subscription_status,
    confirmed_at: before ? before.confirmed_at : subscription.confirmed_at,
    deleted_at: null,
    created_at: before?.created_at ?? now,
    updated_at: now,
  };
}

/** The table item of a contact: its own key, its place in its type's index and the field ids of its values. */
export function contactItem(record: ContactRecord, fields: Map<string, CustomField>): Item & { pk: string; sk: string } {
  const ids: CustomFieldIds = {};
  for (const name of Object.keys(record.custom_field ?? {})) {
    const field = fields.get(name);
    if (field) ids[name] = field.id;
  }
  return {
    ...contactKey(record.user_id, record.id),
    ...contactOfTypeIndexKey(record.user_id, record.contact_type_id, record.id),
    entity: CONTACT,
    ...record,
    custom_field_ids: ids,
  };
}

/** The name shown for a contact: first and last name joined, trimmed. */
export function fullName(contact: Pick<ContactRecord, 'first_name' | 'last_name'>): string {
  return `${contact.first_name} ${contact.last_name}`.trim();
}

/**
 * What a contact too large to store is told. Its custom values make it grow: each keeps its field's
 * name twice beside the value, so many fields with long names weigh even when empty.
 */
export const contactTooLargeMessage = `The contact must not be greater than ${maxItemBytes / 1024} kilobytes with its custom fields.`;

/** Whether the contact's item fits DynamoDB's 400 KB. */
export function contactFitsOneItem(record: ContactRecord, fields: Map<string, CustomField>): boolean {
  return itemBytes(contactItem(record, fields)) <= maxItemBytes;
}
