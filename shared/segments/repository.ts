// Segments (rule-based lists over one contact type): every table access for the segment items.
import { randomUUID } from 'node:crypto';
import type { Condition } from './rules';
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { SEGMENT, segmentContactTypeIndexKey, segmentKey, segmentPartition, segmentsOfContactTypePartition } from './keys';
import { deleteAllSegmentRecipients } from './recipients';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { deleteExistingItem, getItem, putNewItem, queryAll, updateExistingItem, withoutKeys, type Item } from '../table/records';

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
}

/** What membership code needs of a segment: its rules, their version and the contacts taken out by hand. */
export interface SegmentRules {
  id: number;
  contact_type_id: number;
  conditions: Condition[];
  /** A new token on every save and update, so a membership write made under older rules is refused. */
  rules_version: string;
  excluded_contact_ids: ReadonlySet<number>;
}

export interface SegmentInput {
  contact_type_id: number;
  segment_name: string;
  conditions: Condition[];
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
    excluded_contact_ids: new Set([...((item.excluded_contact_ids as Set<number> | undefined) ?? [])].map(Number)),
  };
}

function withCount(item: Item): SegmentWithCount {
  return { ...toSegment(item), segment_emails_count: Number(item.segment_emails_count ?? 0) };
}

/** One page of the account's segments, in id order. */
export async function listSegmentsPage(accountId: number, page: PageRequest): Promise<ListPage<SegmentWithCount>> {
  return mapPage(await queryListPage({ partition: segmentPartition(accountId) }, page), withCount);
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

export async function addSegment(accountId: number, input: SegmentInput): Promise<SegmentRules> {
  const id = await nextId(accountId, SEGMENT);
  const now = isoTimestamp();
  const item = {
    ...segmentKey(accountId, id),
    ...segmentContactTypeIndexKey(accountId, input.contact_type_id, id),
    entity: SEGMENT,
    id,
    user_id: accountId,
    contact_type_id: input.contact_type_id,
    segment_name: input.segment_name,
    ...ruleAttributes(input.conditions),
    query_type: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
    segment_emails_count: 0,
    rules_version: randomUUID(),
  };
  if (!(await putNewItem(item))) throw new Error(`Segment id ${id} of account ${accountId} was already taken`);
  return toRules(item);
}

/** Replace a segment's name, contact type and rules; membership must then be rebuilt. */
export async function updateSegment(accountId: number, id: number, input: SegmentInput): Promise<SegmentRules> {
  const item = await updateExistingItem(segmentKey(accountId, id), {
    ...segmentContactTypeIndexKey(accountId, input.contact_type_id, id),
    contact_type_id: input.contact_type_id,
    segment_name: input.segment_name,
    ...ruleAttributes(input.conditions),
    updated_at: isoTimestamp(),
    rules_version: randomUUID(),
  });
  if (!item) throw new RecordNotFound(SEGMENT, id);
  return toRules(item);
}

/**
 * Delete a segment and all its recipients. The segment item goes first, so membership writes in
 * flight (which are conditioned on it) fail instead of adding recipients behind the sweep.
 */
export async function deleteSegment(accountId: number, id: number): Promise<void> {
  if (!(await deleteExistingItem(segmentKey(accountId, id)))) throw new RecordNotFound(SEGMENT, id);
  await deleteAllSegmentRecipients(accountId, id);
}
