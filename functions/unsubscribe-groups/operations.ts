// Unsubscribe group operations: the groups (list, save, details, update) and their recipients
// (manually-add, recipients-list, recipients-delete, recipients-bulk-delete).
import {
  addToSuppressionList,
  deleteSuppressionEntries,
  deleteSuppressionEntry,
  listSuppressionListPage,
} from '../../shared/suppressions/repository';
import {
  addUnsubscribeGroup,
  getUnsubscribeGroup,
  listUnsubscribeGroupsPage,
  unsubscribeGroupExists,
  updateUnsubscribeGroup,
} from '../../shared/suppressions/unsubscribe-groups';
import { RecordNotFound } from '../../shared/table/errors';
import { ValidationError } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { emailList } from '../../shared/validation/email-list';
import { flag, format, idList, integer, messages, string, validate } from '../../shared/validation';

/** Limits the spec leaves open: a group name fits a list row; a description is a short paragraph. */
const maxGroupNameLength = 255;
const maxDescriptionLength = 1000;

export const groupFields = {
  group_name: string().required().max(maxGroupNameLength),
  description: string().required().max(maxDescriptionLength),
  is_display: flag().required(),
};
export const recordId = integer().required().min(1);

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('unsubscribesGroups', await listUnsubscribeGroupsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, groupFields);
  await addUnsubscribeGroup(account.id, input);
  return ok('Saved Successfully');
});

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: recordId });
  return ok({ unsubscribesGroup: await getUnsubscribeGroup(account.id, input.id) });
});

export const update = accountOperation(async ({ account, request }) => {
  // The id comes in the query and the rest in the body; one validation reports both.
  const { id, ...changes } = validate({ ...request.fields, id: request.query.id }, { id: recordId, ...groupFields });
  await updateUnsubscribeGroup(account.id, id, changes);
  return ok('Updated Successfully');
});

const unknownGroup = () => ValidationError.of('unsubscribe_groups_id', format(messages.exists, { attribute: 'unsubscribe groups id' }));

export const manuallyAdd = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { unsubscribe_groups_id: integer().required(), email_address: emailList().required() });
  const groupId = input.unsubscribe_groups_id;
  if (groupId < 1 || !(await unsubscribeGroupExists(account.id, groupId))) throw unknownGroup();
  await addToSuppressionList({ accountId: account.id, groupId }, input.email_address);
  return ok('Added Successfully');
}, { errors: [on(RecordNotFound, unknownGroup)] });

export const recipientsList = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { groupId: recordId, ...pageQuery() });
  // An unknown group is not found, not an empty list.
  await getUnsubscribeGroup(account.id, input.groupId);
  return ok(withNextCursor('recipients', await listSuppressionListPage({ accountId: account.id, groupId: input.groupId }, pageOf(input))));
});

export const recipientsDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: recordId });
  await deleteSuppressionEntry(account.id, 'group', input.id);
  return ok('Deleted Successfully');
});

export const recipientsBulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds: idList() });
  await deleteSuppressionEntries(account.id, 'group', input.strIds);
  return ok('Deleted Successfully');
});
