// Segment operations: list, save, update and delete. Save and update answer at once and rebuild the
// segment's membership in a background job (the list shows `build_status` until it is ready); delete
// answers at once and purges the recipients in a job.
import { contactTypeExists } from '../../shared/contact-types/repository';
import { listCustomFields } from '../../shared/custom-fields/repository';
import { reservedFieldNames } from '../../shared/custom-fields/reserved-fields';
import { deleteSegment, saveSegment, updateSegmentRules } from '../../shared/audience/segment-service';
import { listSegmentsPage, type SegmentInput } from '../../shared/segments/repository';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok, okInErrors } from '../../shared/http/reply';
import { parseConditions } from '../../shared/segments/conditions';
import { isFieldType, queryTypes, type FieldType } from '../../shared/segments/rules';
import { getSingleSend, isSingleSendUtr } from '../../shared/single-sends/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { format, integer, messages, string, validate } from '../../shared/validation';

/** A segment name fits a list row, like the other names of the API. */
const maxSegmentNameLength = 255;

export const segmentId = integer().required().min(1);
export const contactTypeId = integer().required();
export const segmentName = string().required().max(maxSegmentNameLength);
export const queryType = string().in(queryTypes);

/** Every field a condition may name: the reserved columns (text) and the account's custom fields. */
async function conditionFields(accountId: number): Promise<Map<string, FieldType>> {
  const fields = new Map<string, FieldType>(reservedFieldNames.map((name) => [name, 'text']));
  for (const field of await listCustomFields(accountId)) fields.set(field.field_name, isFieldType(field.field_type) ? field.field_type : 'text');
  return fields;
}

/**
 * The account's single sends among the values that look like a utr (lower-cased), for the engagement
 * conditions that name one: another account's send is not found, as an unknown one is.
 */
async function singleSendsAmong(accountId: number, values: unknown): Promise<Set<string>> {
  const candidates = (Array.isArray(values) ? values : []).filter((value): value is string => typeof value === 'string' && isSingleSendUtr(value.trim()));
  const utrs = [...new Set(candidates.map((value) => value.trim().toLowerCase()))];
  const found = await Promise.all(
    utrs.map((utr) =>
      getSingleSend(accountId, utr).then(
        () => utr,
        (error: unknown) => {
          if (error instanceof RecordNotFound) return undefined;
          throw error;
        },
      ),
    ),
  );
  return new Set(found.filter((utr): utr is string => utr !== undefined));
}

/** Validate save/update input, reporting every failing field at once in input order. */
async function segmentInput(accountId: number, fields: Record<string, unknown>, leading: FieldErrors = {}): Promise<SegmentInput> {
  const errors: FieldErrors = { ...leading };
  const typeId = contactTypeId.parse(fields.contact_type_id, 'contact_type_id');
  if (!typeId.ok) errors.contact_type_id = [typeId.message];
  else if (typeId.value < 1 || !(await contactTypeExists(accountId, typeId.value))) {
    errors.contact_type_id = [format(messages.exists, { attribute: 'contact type id' })];
  }
  const name = segmentName.parse(fields.segment_name, 'segment_name');
  if (!name.ok) errors.segment_name = [name.message];
  const [known, sends] = await Promise.all([conditionFields(accountId), singleSendsAmong(accountId, fields.value)]);
  const conditions = parseConditions(fields, known, sends);
  if (!conditions.ok) Object.assign(errors, conditions.errors);
  // Blank is left out: stored as null, which means `and`.
  const blank = fields.query_type === undefined || fields.query_type === null || fields.query_type === '';
  const combine = queryType.parse(typeof fields.query_type === 'string' ? fields.query_type.trim().toLowerCase() : fields.query_type, 'query_type');
  if (!blank && !combine.ok) errors.query_type = [combine.message];
  if (Object.keys(errors).length > 0 || !typeId.ok || !name.ok || !conditions.ok) throw new ValidationError(errors);
  return {
    contact_type_id: typeId.value,
    segment_name: name.value,
    conditions: conditions.conditions,
    query_type: blank || !combine.ok ? null : (combine.value as (typeof queryTypes)[number]),
  };
}

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('segments', await listSegmentsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = await segmentInput(account.id, request.fields);
  await saveSegment(account.id, input);
  return ok('Added Successfully');
});

export const update = accountOperation(async ({ account, request }) => {
  // The segment to update is named in the body; the query is accepted too, as other updates take it there.
  const id = segmentId.parse(request.fields.segment_id ?? request.query.segment_id, 'segment_id');
  const input = await segmentInput(account.id, request.fields, id.ok ? {} : { segment_id: [id.message] });
  await updateSegmentRules(account.id, id.ok ? id.value : 0, input);
  return ok('Updated Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { segment_id: segmentId });
  await deleteSegment(account.id, input.segment_id);
  return okInErrors('Deleted Successfully');
});
