// Global unsubscribe operations: list, save (a comma-separated list), delete, bulk-delete.
import {
  addToSuppressionList,
  deleteSuppressionEntries,
  deleteSuppressionEntry,
  listSuppressionListPage,
} from '../../shared/suppressions/repository';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { emailList } from '../../shared/validation/email-list';
import { idList, integer, validate } from '../../shared/validation';

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('unSubscribers', await listSuppressionListPage({ accountId: account.id, groupId: null }, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { email_address: emailList().required() });
  // Addresses already on the list stay as they are: re-adding one is not an error.
  await addToSuppressionList({ accountId: account.id, groupId: null }, input.email_address);
  return ok('Added Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  await deleteSuppressionEntry(account.id, 'global', input.id);
  return ok('Deleted Successfully');
});

export const bulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds: idList() });
  await deleteSuppressionEntries(account.id, 'global', input.strIds);
  return ok('Deleted Successfully');
});
