// Bulk JSON upsert: the call's type and contacts checked as a whole (each contact is read by the job,
// with contacts/add's rules), then handed to a background job whose id answers at once.
import { maxUpsertContacts, startContactUpsert } from '../../shared/audience/contact-upsert';
import { contactTypeExists } from '../../shared/contact-types/repository';
import { ContactTypeUnavailable } from '../../shared/contacts/errors';
import { ValidationError } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { array, format, integer, messages, record, validate } from '../../shared/validation';

/** The call's fields: the type, and 1 to 10,000 contacts, each an object. */
export const upsertFields = {
  contact_type_id: integer().required().min(1),
  contacts: array(record().required()).required().min(1).max(maxUpsertContacts),
};

const unknownType = () => ValidationError.of('contact_type_id', format(messages.exists, { attribute: 'contact type id' }));

export const bulkUpsert = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, upsertFields);
  if (!(await contactTypeExists(account.id, input.contact_type_id))) throw unknownType();
  try {
    return ok({ job_id: await startContactUpsert(account.id, input.contact_type_id, input.contacts) });
  } catch (error) {
    // The type was deleted between the check above and the job's start.
    if (error instanceof ContactTypeUnavailable) throw unknownType();
    throw error;
  }
});
