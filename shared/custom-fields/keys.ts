// Keys of custom fields and the claims on their names.
import { type Key, entityKey, entityPartition } from '../table/keys';

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
