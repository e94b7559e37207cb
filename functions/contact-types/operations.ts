// Contact type operations: list, add, view, update, delete.
import {
  addContactType,
  getContactType,
  listContactTypesPage,
  updateContactType,
  type OptInSettings,
} from '../../shared/contact-types/repository';
import { currentSender } from '../../shared/senders/repository';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { deleteContactType } from '../../shared/audience/contact-type-service';
import { wakeOptInMails } from '../../shared/audience/opt-in-schedule';
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

export const doubleOptIn = integer().in([0, 1]);
export const optInSenderId = integer().min(1);

/**
 * The consent settings of an add or update, with `name`: `opt_in_sender_id` must be one of the
 * account's senders, and is required while double opt-in is on. On update, a setting left out keeps
 * its value (`current`); on add it is off.
 */
async function readTypeInput(accountId: number, fields: Record<string, unknown>, schema: Parameters<typeof validate>[1], current?: OptInSettings) {
  let values: Record<string, unknown> = {};
  let errors: FieldErrors = {};
  try {
    values = validate(fields, { ...schema, double_opt_in: doubleOptIn, opt_in_sender_id: optInSenderId });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors = error.errors;
  }
  const given = values.double_opt_in as 0 | 1 | undefined;
  const senderGiven = values.opt_in_sender_id as number | undefined;
  const optIn: OptInSettings = {
    double_opt_in: given ?? current?.double_opt_in ?? 0,
    opt_in_sender_id: senderGiven ?? current?.opt_in_sender_id ?? null,
  };
  if (!errors.opt_in_sender_id) {
    if (senderGiven !== undefined && !(await currentSender(accountId, senderGiven))) errors.opt_in_sender_id = [format(messages.exists, { attribute: 'opt in sender id' })];
    else if (optIn.double_opt_in === 1 && optIn.opt_in_sender_id === null && !errors.double_opt_in) errors.opt_in_sender_id = ['The opt in sender id field is required when double opt in is 1.'];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { values, optIn };
}

export const add = accountOperation(async ({ account, request }) => {
  const { values, optIn } = await readTypeInput(account.id, request.fields, { name });
  await addContactType(account.id, values.name as string, optIn);
  return ok('Added Successfully');
});

/** The spec answers an unknown id here in the validation shape, not with a plain text. */
const unknownTypeAsField = on(RecordNotFound, () => ({ statusCode: 404, errors: { contact_type_id: [format(messages.exists, { attribute: 'contact type id' })] } }));

export const view = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_type_id: contactTypeId });
  return ok({ contactType: await getContactType(account.id, input.contact_type_id) });
}, { errors: [unknownTypeAsField] });

export const update = accountOperation(async ({ account, request }) => {
  const id = contactTypeId.parse(request.fields.id, 'id');
  // An unknown type is answered as before (404 Record not found) once its input is valid.
  const current = id.ok ? await getContactType(account.id, id.value).catch((error: unknown) => {
    if (error instanceof RecordNotFound) return undefined;
    throw error;
  }) : undefined;
  const { values, optIn } = await readTypeInput(account.id, request.fields, { id: contactTypeId, name }, current);
  await updateContactType(account.id, values.id as number, values.name as string, optIn);
  // Mails owed from the type's earlier sender may go from the one it names now.
  if (optIn.double_opt_in === 1 && optIn.opt_in_sender_id !== current?.opt_in_sender_id) await wakeOptInMails(account.id);
  return ok('Updated Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_type_id: contactTypeId });
  await deleteContactType(account.id, input.contact_type_id);
  return okInErrors('Deleted Successfully');
});
