// Segment recipient operations: list a segment's recipients, store one by hand, delete one.
import { SegmentChanged, applyMembershipChanges } from '../../shared/segments/recipient-changes';
import { deleteSegmentRecipient, listSegmentRecipientsPage, manualEntry } from '../../shared/segments/recipients';
import { getSegment, segmentExists } from '../../shared/segments/repository';
import { ValidationError } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { email, format, integer, messages, string, validate } from '../../shared/validation';

/** Names fit a list row, like the other names of the API. */
export const maxNameLength = 255;

export const recordId = integer().required().min(1);

const unknownSegment = () => ValidationError.of('segment_id', format(messages.exists, { attribute: 'segment id' }));

export const emailList = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { segment_id: recordId, ...pageQuery() });
  // An unknown segment is not found, not an empty list.
  await getSegment(account.id, input.segment_id);
  return ok(withNextCursor('contactEmails', await listSegmentRecipientsPage(account.id, input.segment_id, pageOf(input))));
});

export const emailStore = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, {
    segment_id: integer().required(),
    first_name: string().required().max(maxNameLength),
    last_name: string().required().max(maxNameLength),
    email: email().required(),
  });
  if (input.segment_id < 1 || !(await segmentExists(account.id, input.segment_id))) throw unknownSegment();
  const outcome = await applyMembershipChanges(account.id, input.segment_id, [{ kind: 'manual-in', entry: manualEntry(input) }]);
  // Each address is in a segment once; a second manual entry for it would be a duplicate.
  if (outcome.manualTaken.length > 0) throw ValidationError.of('email', format(messages.unique, { attribute: 'email' }));
  return ok('Added Successfully');
}, { errors: [on(SegmentChanged, unknownSegment)] });

export const emailDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { segment_recipient_id: recordId });
  await deleteSegmentRecipient(account.id, input.segment_recipient_id);
  return ok('Deleted Successfully');
});
