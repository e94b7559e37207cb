// Notification recipient operations: list, save, delete, bulk-delete.
import {
  addNotificationRecipient,
  deleteNotificationRecipient,
  deleteNotificationRecipients,
  listNotificationRecipientsPage,
} from '../../shared/notification-recipients/repository';
import { ValidationError } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { email, format, idList, integer, messages, string, validate } from '../../shared/validation';

/** A display name fits a mail header's name part comfortably. */
const maxOwnerLength = 255;

export const recipientFields = {
  email_address: email().required(),
  // The spec's one exception: this message names the field "name" and has no final period.
  email_owner: string().required().max(maxOwnerLength).label('name').message('required', 'The name field is required'),
};

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('notifications', await listNotificationRecipientsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, recipientFields);
  const added = await addNotificationRecipient(account.id, input);
  // The same address twice would only send each notification twice to one inbox.
  if (!added) throw ValidationError.of('email_address', format(messages.unique, { attribute: 'email address' }));
  return ok('Added Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  await deleteNotificationRecipient(account.id, input.id);
  return ok('Deleted Successfully');
});

export const bulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds: idList() });
  await deleteNotificationRecipients(account.id, input.strIds);
  return ok('Deleted Successfully');
});
