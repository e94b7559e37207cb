// Segments (rule-based lists over one contact type): every table access for the segment items.
import { randomUUID } from 'node:crypto';
import type { Condition, QueryType } from './rules';
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { SEGMENT, segmentContactTypeIndexKey, segmentKey, segmentPartition, segmentsOfContactTypePartition } from './keys';
import type { TransactionAction } from '../table/transactions';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { conditionHeld, getItem, putNewItem, queryAll, setExpression, updateItem, withoutKeys, type Item } from '../table/records';
import { countClosings, countedRecipients, countRulesUpdates } from './counts';
import { engagementIndexDelete, engagementIndexWrite } from './engagement-index';

/** A segment as the spec shows it. */
export interface Segment {
  id: number;
  user_id: number;
  contact_type_id: number;
  segment_name: string;
  select_field: string[];
  select_operator: string[];
  value: string[];
  query_type: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SegmentWithCount extends Segment {
  segment_emails_count: number;
  /** `building` while the recipients are being worked out after a save or update (the segment is not mailed then), else `ready`. */
  build_status: 'building' | 'ready';
}

/** Set on a segment item while its membership is rebuilt for the rules version it holds. */
const buildingAttribute = 'building';

/** What membership code needs of a segment: its rules, their version and the contacts taken out by hand. */
export interface SegmentRules {
  id: number;
  contact_type_id: number;
  conditions: Condition[];
  /** A new token on every save and update, so a membership write made under older rules is refused. */
  rules_version: string;
  excluded_contact_ids: ReadonlySet<number>;
  /** Its membership is being rebuilt: sends to it wait until it is complete. */
  building: boolean;
  /** How its conditions combine (a stored null is `and`). */
  query_type: QueryType;
}

export interface SegmentInput {
  contact_type_id: number;
  segment_name: string;
  conditions: Condition[];
  /** Stored as given; left out, it is stored as null, which means `and`. */
  query_type?: QueryType | null;
}

function toSegment(item: Item): Segment {
  const record = withoutKeys<Segment>(item);
  return {
    id: Number(record.id),
    user_id: Number(record.user_id),
    contact_type_id: Number(record.contact_type_id),
    segment_name: record.segment_name,
    select_field: record.select_field ?? [],
    select_operator: record.select_operator ?? [],
    value: record.value ?? [],
    query_type: record.query_type ?? null,
    deleted_at: record.deleted_at ?? null,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The stored form of conditions: the spec's three aligned arrays, plus each field's type at save time. */
function ruleAttributes(conditions: Condition[]) {
  return {
    select_field: conditions.map((condition) => condition.field),
    select_operator: conditions.map((condition) => condition.operator),
    value: conditions.map((condition) => condition.value),
    field_types: conditions.map((condition) => condition.fieldType),
  };
}

function toRules(item: Item): SegmentRules {
  const fields = (item.select_field as string[] | undefined) ?? [];
  const operators = (item.select_operator as Condition['operator'][] | undefined) ?? [];
  const values = (item.value as string[] | undefined) ?? [];
  const types = (item.field_types as Condition['fieldType'][] | undefined) ?? [];
  return {
    id: Number(item.id),
    contact_type_id: Number(item.contact_type_id),
    conditions: fields.map((field, i) => ({
      field,
      operator: operators[i] as Condition['operator'],
      value: values[i] ?? '',
      fieldType: types[i] ?? 'text',
    })),
    rules_version: String(item.rules_version ?? ''),
    // Exclusions made before they became items (exclusions.ts adds the others where they matter).
    excluded_contact_ids: new Set([...((item.excluded_contact_ids as Set<number> | undefined) ?? [])].map(Number)),
    building: item[buildingAttribute] !== undefined,
    query_type: item.query_type === 'or' ? 'or' : 'and',
  };
}

/** The segment with its count: its counters' sum, plus the count a segment item kept before counters had items. */
function withCount(item: Item, counted: number): SegmentWithCount {
  return { ...toSegment(item), segment_emails_count: Number(item.segment_emails_count ?? 0) + counted, build_status: item[buildingAttribute] === undefined ? 'ready' : 'building' };
}

/** One page of the account's segments, in id order, each with its count. */
export async function listSegmentsPage(accountId: number, page: PageRequest): Promise<ListPage<SegmentWithCount>> {
  const found = await queryListPage({ partition: segmentPartition(accountId) }, page);
  const counts = await countedRecipients(accountId, found.items.map((item) => Number(item.id)));
  return mapPage(found, (item) => withCount(item, counts.get(Number(item.id)) ?? 0));
}

export async function getSegment(accountId: number, id: number): Promise<Segment> {
  const item = await getItem(segmentKey(accountId, id));
  if (!item) throw new RecordNotFound(SEGMENT, id);
  return toSegment(item);
}

export async function segmentExists(accountId: number, id: number): Promise<boolean> {
  return (await getItem(segmentKey(accountId, id))) !== undefined;
}

export async function getSegmentRules(accountId: number, id: number): Promise<SegmentRules | undefined> {
  const item = await getItem(segmentKey(accountId, id));
  return item ? toRules(item) : undefined;
}

/** The rules of every segment over one contact type, in one Query of the contact type's gsi1 partition. */
export async function listSegmentRulesOfContactType(accountId: number, contactTypeId: number): Promise<SegmentRules[]> {
  const items = await queryAll({ partition: segmentsOfContactTypePartition(accountId, contactTypeId), index: 'gsi1' });
  return items.map(toRules);
}

function newSegmentItem(accountId: number, id: number, input: SegmentInput): Item & { pk: string; sk: string } {
  const now = isoTimestamp();
  return {
    ...segmentKey(accountId, id),
    ...segmentContactTypeIndexKey(accountId, input.contact_type_id, id),
    entity: SEGMENT,
    id,
    user_id: accountId,
    contact_type_id: input.contact_type_id,
    segment_name: input.segment_name,
    ...ruleAttributes(input.conditions),
    query_type: input.query_type ?? null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
    segment_emails_count: 0,
    rules_version: randomUUID(),
  };
}

/** Store a new segment with no recipients, ready at once (fixtures and tools; the API saves through `newSegmentPut`). */
export async function addSegment(accountId: number, input: SegmentInput): Promise<SegmentRules> {
  const item = newSegmentItem(accountId, await nextId(accountId, SEGMENT), input);
  if (!(await putNewItem(item))) throw new Error(`Segment id ${String(item.id)} of account ${accountId} was already taken`);
  return toRules(item);
}

/**
 * A new segment, marked building, and the writes that store it (in the transaction that starts its
 * rebuild job): its Put, refused when the id is taken, first; then its engagement index item's.
 */
export async function newSegmentPut(accountId: number, input: SegmentInput): Promise<{ segment: SegmentRules; writes: TransactionAction[] }> {
  const item = { ...newSegmentItem(accountId, await nextId(accountId, SEGMENT), input) };
  item[buildingAttribute] = item.rules_version;
  const put: TransactionAction = { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
  return { segment: toRules(item), writes: [put, engagementIndexWrite(accountId, Number(item.id), input.contact_type_id, input.conditions)] };
}

/**
 * The writes that replace a segment's name, contact type and rules under a new rules version and
 * mark it building (in the transaction that starts its rebuild job): the segment's Update, refused
 * when it does not exist, first; then its counters', which membership writes check the version on.
 */
export function segmentRulesUpdate(accountId: number, id: number, input: SegmentInput): { rulesVersion: string; changes: TransactionAction[] } {
  const rulesVersion = randomUUID();
  const changes: Item = {
    ...segmentContactTypeIndexKey(accountId, input.contact_type_id, id),
    contact_type_id: input.contact_type_id,
    segment_name: input.segment_name,
    ...ruleAttributes(input.conditions),
    query_type: input.query_type ?? null,
    updated_at: isoTimestamp(),
    rules_version: rulesVersion,
    [buildingAttribute]: rulesVersion,
  };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const update = setExpression(changes, names, values);
  const segmentUpdate: TransactionAction = {
    Update: {
      Key: segmentKey(accountId, id),
      UpdateExpression: update,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  const index = engagementIndexWrite(accountId, id, input.contact_type_id, input.conditions);
  return { rulesVersion, changes: [segmentUpdate, ...countRulesUpdates(accountId, id, rulesVersion), index] };
}

/** The rebuild for `rulesVersion` is complete: the segment may be mailed. False when its rules changed meanwhile (or it is gone). */
export async function markSegmentBuilt(accountId: number, id: number, rulesVersion: string): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: segmentKey(accountId, id),
      UpdateExpression: 'REMOVE #building',
      ConditionExpression: 'attribute_exists(pk) AND rules_version = :version',
      ExpressionAttributeNames: { '#building': buildingAttribute },
      ExpressionAttributeValues: { ':version': rulesVersion },
    }),
  );
}

/**
 * The writes that delete a segment (in the transaction that starts the job purging its recipients):
 * the Delete of its item, refused when it does not exist, first; then its counters marked deleted.
 * Membership writes in flight are conditioned on a counter, so they fail from then on instead of
 * adding recipients behind the purge.
 */
export function segmentDeletion(accountId: number, id: number): TransactionAction[] {
  return [{ Delete: { Key: segmentKey(accountId, id), ConditionExpression: 'attribute_exists(pk)' } }, ...countClosings(accountId, id), engagementIndexDelete(accountId, id)];
}
