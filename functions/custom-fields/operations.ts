// Field operations: the reserved fields every contact has, and the account's custom fields.
import { addCustomField, customFieldTypes, CustomFieldNameTaken, deleteCustomField, listCustomFieldsPage } from '../../shared/custom-fields/repository';
import { isReservedFieldName, reservedFields } from '../../shared/custom-fields/reserved-fields';
import { ValidationError } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { format, integer, messages, string, validate } from '../../shared/validation';

/** Longest custom field name: it becomes a CSV column and a `((name))` placeholder. */
const maxFieldNameLength = 64;

export const fieldName = string()
  .required()
  .max(maxFieldNameLength)
  .regex(/^[A-Za-z0-9_]+$/)
  .check((name) => (isReservedFieldName(name) ? 'The field name may not be a reserved field name.' : undefined));
export const fieldType = string().required().in(customFieldTypes);

export const reserved = accountOperation(async () => ok({ reservedFields }));

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('customFields', await listCustomFieldsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { field_name: fieldName, field_type: fieldType });
  await addCustomField(account.id, input.field_name, input.field_type as (typeof customFieldTypes)[number]);
  return ok('Added Successfully');
}, { errors: [on(CustomFieldNameTaken, () => ValidationError.of('field_name', format(messages.unique, { attribute: 'field name' })))] });

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  await deleteCustomField(account.id, input.id);
  return ok('Deleted Successfully');
});
