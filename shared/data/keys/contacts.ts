// Keys of contact types, contacts and custom fields.
import { type Key, entityKey, entityPartition, idSortKey } from './base';

// Contact types

export const CONTACT_TYPE = 'contact-type';

export function contactTypeKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_TYPE, id);
}

export function contactTypePartition(accountId: number): string {
  return entityPartition(accountId, CONTACT_TYPE);
}

// Contacts

export const CONTACT = 'contact';

/** A contact's own item, by id; the account's contact partition lists them in id order. */
export function contactKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT, id);
}

export function contactPartition(accountId: number): string {
  return entityPartition(accountId, CONTACT);
}

/** The gsi1 partition of one contact type's contacts (reads by type and the contact-type cascade). */
export function contactsOfTypePartition(accountId: number, contactTypeId: number): string {
  return entityPartition(accountId, `${CONTACT_TYPE}#${contactTypeId}#${CONTACT}`);
}

/** The gsi1 attributes that place a contact in its type's partition, in id order. */
export function contactOfTypeIndexKey(accountId: number, contactTypeId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: contactsOfTypePartition(accountId, contactTypeId), gsi1sk: idSortKey(id) };
}

/** The item that claims an email within a contact type (case-insensitive), so two contacts never share it. */
export function contactEmailKey(accountId: number, contactTypeId: number, email: string): Key {
  return { pk: entityPartition(accountId, `contact-email#${contactTypeId}`), sk: email.toLowerCase() };
}

// Custom fields

export const CUSTOM_FIELD = 'custom-field';

export function customFieldKey(accountId: number, id: number): Key {
  return entityKey(accountId, CUSTOM_FIELD, id);
}

export function customFieldPartition(accountId: number): string {
  return entityPartition(accountId, CUSTOM_FIELD);
}

/** The item that claims a custom field name in an account (case-insensitive). */
export function customFieldNameKey(accountId: number, fieldName: string): Key {
  return { pk: entityPartition(accountId, 'custom-field-name'), sk: fieldName.toLowerCase() };
}
