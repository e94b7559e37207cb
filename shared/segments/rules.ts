// The segment rule engine: the operators, how values of each field type compare, and whether a
// contact matches a segment's conditions. Pure, so membership code and tests share it unchanged.
import type { ContactRecord } from '../contacts/record';
import { reservedFieldNames } from '../custom-fields/reserved-fields';
import { engagementMatches, isEngagementOperator, noEngagement, type EngagementFacts, type EngagementOperator } from './engagement-rules';

/** Every operator a condition may use, in the exact phrases clients send. */
export const segmentOperators = [
  'is',
  'is not',
  'contains',
  'does not contain',
  'starts with',
  'ends with',
  'is empty',
  'is not empty',
  'greater than',
  'less than',
  'between',
] as const;

export type SegmentOperator = (typeof segmentOperators)[number] | EngagementOperator;

/**
 * The field types of the spec's field definitions; reserved fields are text. `engagement` is the type
 * of the two engagement fields (`email_opened`, `email_clicked`), which take only engagement operators.
 */
export const fieldTypes = ['text', 'number', 'datetime-local', 'engagement'] as const;

export type FieldType = (typeof fieldTypes)[number];

/** One condition; `value` is '' for the operators that take none, and `low,high` for `between`. */
export interface Condition {
  field: string;
  fieldType: FieldType;
  operator: SegmentOperator;
  value: string;
}

/** How a segment's conditions combine: all of them (`and`, also when none was given) or any (`or`). */
export const queryTypes = ['and', 'or'] as const;

export type QueryType = (typeof queryTypes)[number];

/** Operators that test presence only and ignore `value`. */
export function takesValue(operator: SegmentOperator): boolean {
  return operator !== 'is empty' && operator !== 'is not empty';
}

/** Operators that compare by the field's type (number, date); the rest compare text. */
export function comparesByType(operator: SegmentOperator): boolean {
  return operator === 'is' || operator === 'is not' || operator === 'greater than' || operator === 'less than' || operator === 'between';
}

export function isFieldType(value: unknown): value is FieldType {
  return typeof value === 'string' && (fieldTypes as readonly string[]).includes(value);
}

export function isSegmentOperator(value: unknown): value is SegmentOperator {
  return typeof value === 'string' && ((segmentOperators as readonly string[]).includes(value) || isEngagementOperator(value));
}

/** Whether a condition reads engagement (opens and clicks) rather than a contact field. */
export function isEngagementCondition(condition: Pick<Condition, 'fieldType'>): boolean {
  return condition.fieldType === 'engagement';
}

/** The two bounds of a `between` value (`low,high`), or undefined unless there are exactly two non-blank ones. */
export function rangeBounds(value: string): [string, string] | undefined {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return [parts[0] as string, parts[1] as string];
}

const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

export function parseNumber(text: string): number | undefined {
  const trimmed = text.trim();
  return numberPattern.test(trimmed) ? Number(trimmed) : undefined;
}

/**
 * A `datetime-local` value (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, optional seconds and fraction) as
 * milliseconds. Both sides of a comparison are local times of the same account, so reading them as
 * UTC orders them correctly without knowing the zone. A date alone is midnight.
 */
export function parseDateTime(text: string): number | undefined {
  const match = datePattern.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const millis = Math.round(Number(`0.${match[7] ?? '0'}`) * 1000);
  const at = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, millis);
  const check = new Date(at);
  // Date.UTC rolls 2024-02-30 over to March; a real calendar date survives the round trip.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59) return undefined;
  return at;
}

/** Text as compared: trimmed and lower-cased, so every text comparison ignores case. */
function folded(text: string): string {
  return text.trim().toLowerCase();
}

/** Order two values by the field's type; undefined when either cannot be read as that type. */
export function compareValues(fieldType: FieldType, left: string, right: string): number | undefined {
  if (fieldType === 'number') {
    const [a, b] = [parseNumber(left), parseNumber(right)];
    return a === undefined || b === undefined ? undefined : Math.sign(a - b);
  }
  if (fieldType === 'datetime-local') {
    const [a, b] = [parseDateTime(left), parseDateTime(right)];
    return a === undefined || b === undefined ? undefined : Math.sign(a - b);
  }
  const [a, b] = [folded(left), folded(right)];
  return a < b ? -1 : a > b ? 1 : 0;
}

const reserved = new Set<string>(reservedFieldNames);

/** A contact's value of a field: a reserved column, or the custom field's value; null when it has none. */
export function contactFieldValue(contact: ContactRecord, field: string): string | null {
  if (reserved.has(field)) {
    const value = contact[field as keyof ContactRecord];
    return value === null || value === undefined ? null : String(value);
  }
  return contact.custom_field?.[field]?.field_value ?? null;
}

function isBlank(value: string | null): value is null {
  return value === null || value.trim() === '';
}

/** Whether one value satisfies one condition. Blank values match only `is empty` and the negative operators. */
export function valueMatches(condition: Condition, value: string | null): boolean {
  const { operator, fieldType } = condition;
  if (isEngagementOperator(operator)) return false;
  if (operator === 'is empty') return isBlank(value);
  if (operator === 'is not empty') return !isBlank(value);
  if (operator === 'is not' || operator === 'does not contain') {
    return !valueMatches({ ...condition, operator: operator === 'is not' ? 'is' : 'contains' }, value);
  }
  if (isBlank(value)) return false;
  const [text, wanted] = [folded(value), folded(condition.value)];
  switch (operator) {
    case 'contains':
      return text.includes(wanted);
    case 'starts with':
      return text.startsWith(wanted);
    case 'ends with':
      return text.endsWith(wanted);
    case 'is':
      return compareValues(fieldType, value, condition.value) === 0;
    case 'greater than':
      return compareValues(fieldType, value, condition.value) === 1;
    case 'less than':
      return compareValues(fieldType, value, condition.value) === -1;
    case 'between': {
      const bounds = rangeBounds(condition.value);
      if (!bounds) return false;
      // The bounds may come in either order; both are included.
      const order = compareValues(fieldType, bounds[0], bounds[1]);
      if (order === undefined) return false;
      const [low, high] = order <= 0 ? bounds : [bounds[1], bounds[0]];
      const aboveLow = compareValues(fieldType, value, low);
      const belowHigh = compareValues(fieldType, value, high);
      return aboveLow !== undefined && belowHigh !== undefined && aboveLow >= 0 && belowHigh <= 0;
    }
  }
}

/** What a contact's engagement conditions are judged on: its address's facts, and the UTC day it is (`YYYY-MM-DD`). */
export interface EngagementView {
  facts: EngagementFacts;
  today: string;
}

/** Whether the contact satisfies one condition: a field's value, or its address's engagement. */
export function conditionMatches(condition: Condition, contact: ContactRecord, engagement?: EngagementView): boolean {
  if (isEngagementCondition(condition)) return engagementMatches(condition, engagement?.facts ?? noEngagement, engagement?.today ?? '');
  return valueMatches(condition, contactFieldValue(contact, condition.field));
}

/**
 * Whether a contact satisfies the conditions: every one (`and`, the default) or at least one (`or`).
 * A segment without conditions matches nobody.
 */
export function contactMatches(conditions: readonly Condition[], contact: ContactRecord, queryType: QueryType = 'and', engagement?: EngagementView): boolean {
  if (conditions.length === 0) return false;
  const matches = (condition: Condition) => conditionMatches(condition, contact, engagement);
  return queryType === 'or' ? conditions.some(matches) : conditions.every(matches);
}
