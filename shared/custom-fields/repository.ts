// Custom contact fields: every table access for an account's field definitions and the claims on
// their names.
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { CUSTOM_FIELD, customFieldKey, customFieldNameKey, customFieldPartition } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { conditionHeld, getItem, queryAll, withoutKeys, type Item } from '../table/records';
import type { FieldDefinition } from './reserved-fields';
import { committed, transactWrite } from '../table/transactions';

export const customFieldTypes = ['text', 'number', 'datetime-local'] as const;
export type CustomFieldType = (typeof customFieldTypes)[number];

export interface CustomField extends FieldDefinition {
  user_id: number;
  field_type: CustomFieldType;
  is_reserved: 0;
  created_at: string;
  updated_at: string;
}

/** Another field of the account already has this name (compared without case). */
export class CustomFieldNameTaken extends Error {
  constructor(readonly fieldName: string) {
    super(`custom field name ${fieldName} is taken`);
    this.name = 'CustomFieldNameTaken';
  }
}

function toCustomField(item: Item): CustomField {
  const { id, user_id, field_name, field_type, created_at, updated_at } = withoutKeys<CustomField>(item);
  return { id, user_id, field_name, field_type, is_reserved: 0, created_at, updated_at };
}

/** The account's custom fields in id (creation) order, in one Query. */
export async function listCustomFields(accountId: number): Promise<CustomField[]> {
  const items = await queryAll({ partition: customFieldPartition(accountId) });
  return items.map(toCustomField);
}

/** One page of the account's custom fields, in id order. */
export async function listCustomFieldsPage(accountId: number, page: PageRequest): Promise<ListPage<CustomField>> {
  return mapPage(await queryListPage({ partition: customFieldPartition(accountId) }, page), toCustomField);
}

/**
 * Add a field. The name is claimed by its own item in the same transaction, so two concurrent
 * requests for one name cannot both succeed.
 */
export async function addCustomField(accountId: number, fieldName: string, fieldType: CustomFieldType): Promise<CustomField> {
  const id = await nextId(accountId, CUSTOM_FIELD);
  const now = isoTimestamp();
  const field: CustomField = { id, user_id: accountId, field_name: fieldName, field_type: fieldType, is_reserved: 0, created_at: now, updated_at: now };
  const added = await conditionHeld(
    transactWrite([
      {
        Put: {
          Item: { ...customFieldNameKey(accountId, fieldName), entity: 'custom-field-name', field_id: id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          Item: { ...customFieldKey(accountId, id), entity: CUSTOM_FIELD, ...field },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
    { action: 0 },
  );
  if (!added) throw new CustomFieldNameTaken(fieldName);
  return field;
}

/**
 * Delete a field and free its name. Contacts keep no copy that could come back: their values are
 * tied to the field's id, so they stop being shown at once and are dropped on the contact's next write.
 */
export async function deleteCustomField(accountId: number, id: number): Promise<CustomField> {
  const item = await getItem(customFieldKey(accountId, id));
  if (!item) throw new RecordNotFound(CUSTOM_FIELD, id);
  const field = toCustomField(item);
  const deleted = await committed(
    transactWrite([
      { Delete: { Key: customFieldKey(accountId, id), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Delete: {
          Key: customFieldNameKey(accountId, field.field_name),
          ConditionExpression: 'field_id = :id',
          ExpressionAttributeValues: { ':id': id },
        },
      },
    ]),
  );
  // Deleted by a concurrent request between the read and the write.
  if (!deleted) throw new RecordNotFound(CUSTOM_FIELD, id);
  return field;
}
