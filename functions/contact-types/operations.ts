// Contact type operations: list, add, view, update, delete.
import {
  addContactType,
  getContactType,
  listContactTypesPage,
  renameContactType,
} from '../../shared/contact-types/repository';
import { deleteContactType } from '../../shared/audience/contact-type-service';
import { RecordNotFound } from '../../shared/table/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok, okInErrors } from '../../shared/http/reply';
import { integer, messages, string, validate, format } from '../../shared/validation';

export const name = string().required().min(2).max(255);
export const contactTypeId = integer().required().min(1);

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('contactTypes', await listContactTypesPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const add = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { name });
  await addContactType(account.id, input.name);
  return ok('Added Successfully');
});

/** The spec answers an unknown id here in the validation shape, not with a plain text. */
const unknownTypeAsField = on(RecordNotFound, () => ({ statusCode: 404, errors: { contact_type_id: [format(messages.exists, { attribute: 'contact type id' })] } }));

export const view = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_type_id: contactTypeId });
  return ok({ contactType: await getContactType(account.id, input.contact_type_id) });
}, { errors: [unknownTypeAsField] });

export const update = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { id: contactTypeId, name });
  await renameContactType(account.id, input.id, input.name);
  return ok('Updated Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_type_id: contactTypeId });
  await deleteContactType(account.id, input.contact_type_id);
  return okInErrors('Deleted Successfully');
});
