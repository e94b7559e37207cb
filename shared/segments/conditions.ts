// Reading a segment's conditions from the save/update input: the three aligned arrays
// `select_field[i]`, `select_operator[i]`, `value[i]`, checked with Laravel-style messages keyed
// like Laravel's array rules (`select_field.0`).
import type { FieldErrors } from '../errors';
import { format, messages } from '../validation/messages';
import { isEngagementField, isEngagementOperator, maxWindowDays, namesSingleSend } from './engagement-rules';
import {
  comparesByType,
  isSegmentOperator,
  parseDateTime,
  parseNumber,
  rangeBounds,
  takesValue,
  type Condition,
  type FieldType,
} from './rules';

/** Most conditions one segment may have: each is evaluated on every change of every contact of its type. */
export const maxConditions = 20;

/** Longest value of one condition. */
export const maxValueLength = 255;

export type ConditionsResult = { ok: true; conditions: Condition[] } | { ok: false; errors: FieldErrors };

function say(template: string, attribute: string, extra: Record<string, string | number> = {}): string {
  return format(template, { attribute: attribute.replace(/_/g, ' '), ...extra });
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** `value[i]` as text: `value[i][0]`/`value[i][1]` (a range sent as two keys) is joined into `low,high`. */
function valueText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number') return String(raw);
  if (Array.isArray(raw) && raw.every((part) => typeof part === 'string' || typeof part === 'number')) {
    return raw.map((part) => String(part).trim()).join(',');
  }
  return undefined;
}

/** Check a value against the field's type for the operators that compare by type. */
function typedValueError(fieldType: FieldType, text: string, attribute: string): string | undefined {
  if (fieldType === 'number' && parseNumber(text) === undefined) return say(messages.numeric, attribute);
  if (fieldType === 'datetime-local' && parseDateTime(text) === undefined) return say('The :attribute field must be a valid date.', attribute);
  return undefined;
}

/** The array of one input, or its top-level error. */
function arrayInput(input: Record<string, unknown>, name: string, required: boolean): { items?: unknown[]; error?: string } {
  const raw = input[name];
  if (isBlank(raw) || (Array.isArray(raw) && raw.length === 0)) return required ? { error: say(messages.required, name) } : { items: [] };
  if (!Array.isArray(raw)) return { error: say(messages.array, name) };
  return { items: raw };
}

/**
 * The value of an engagement condition, or its error: a single send of the account (`knownSends`, its
 * utrs lower-cased) for the single-send operators, a whole number of days from 1 to 365 for the others.
 */
function engagementValue(operator: string, text: string, attribute: string, knownSends: ReadonlySet<string>): { value?: string; error?: string } {
  if (namesSingleSend(operator)) {
    const utr = text.toLowerCase();
    return knownSends.has(utr) ? { value: utr } : { error: say(messages.in, attribute) };
  }
  if (!/^[+-]?\d+$/.test(text)) return { error: say(messages.integer, attribute) };
  const days = Number(text);
  if (days < 1) return { error: say(messages.minNumber, attribute, { min: 1 }) };
  if (days > maxWindowDays) return { error: say(messages.maxNumber, attribute, { max: maxWindowDays }) };
  return { value: String(days) };
}

/** Whether an operator fits a field's type: engagement operators go with the engagement fields only, and they with nothing else. */
function fitsField(fieldType: FieldType, operator: Condition['operator']): boolean {
  return (fieldType === 'engagement') === isEngagementOperator(operator);
}

/**
 * Parse the conditions. `fields` maps every usable field name (reserved and the account's custom
 * fields) to its type; names match exactly, or else ignoring case, and are stored as defined. The
 * engagement fields (`email_opened`, `email_clicked`) are always usable; `knownSends` holds the
 * lower-cased utrs of the account's single sends among the values, for their single-send operators.
 */
export function parseConditions(input: Record<string, unknown>, fields: ReadonlyMap<string, FieldType>, knownSends: ReadonlySet<string> = new Set()): ConditionsResult {
  const errors: FieldErrors = {};
  const selectField = arrayInput(input, 'select_field', true);
  const selectOperator = arrayInput(input, 'select_operator', true);
  const value = arrayInput(input, 'value', false);
  if (selectField.error) errors.select_field = [selectField.error];
  if (selectOperator.error) errors.select_operator = [selectOperator.error];
  if (value.error) errors.value = [value.error];
  const fieldItems = selectField.items ?? [];
  const count = fieldItems.length;
  if (count > maxConditions) errors.select_field = [say(messages.maxArray, 'select_field', { max: maxConditions })];
  if (selectOperator.items && selectField.items && selectOperator.items.length !== count) {
    errors.select_operator = [say('The :attribute field must contain :size items.', 'select_operator', { size: count })];
  }
  if (value.items && value.items.length > count && count > 0) {
    errors.value = [say(messages.maxArray, 'value', { max: count })];
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const byLowerName = new Map([...fields.keys()].map((name) => [name.toLowerCase(), name]));
  const conditions: Condition[] = [];
  for (let i = 0; i < count; i++) {
    const rawField = fieldItems[i];
    const rawOperator = (selectOperator.items as unknown[])[i];
    const rawValue = (value.items as unknown[])[i];
    const fieldKey = `select_field.${i}`;
    const operatorKey = `select_operator.${i}`;
    const valueKey = `value.${i}`;

    let field: string | undefined;
    if (isBlank(rawField)) errors[fieldKey] = [say(messages.required, fieldKey)];
    else if (typeof rawField !== 'string') errors[fieldKey] = [say(messages.string, fieldKey)];
    else {
      const name = rawField.trim();
      const lower = name.toLowerCase();
      field = isEngagementField(lower) ? lower : fields.has(name) ? name : byLowerName.get(lower);
      if (field === undefined) errors[fieldKey] = [say(messages.in, fieldKey)];
    }

    let operator: Condition['operator'] | undefined;
    if (isBlank(rawOperator)) errors[operatorKey] = [say(messages.required, operatorKey)];
    else {
      const phrase = typeof rawOperator === 'string' ? rawOperator.trim().toLowerCase().replace(/\s+/g, ' ') : undefined;
      if (isSegmentOperator(phrase)) operator = phrase;
      else errors[operatorKey] = [say(messages.in, operatorKey)];
    }

    if (field === undefined || operator === undefined) continue;
    const fieldType: FieldType = isEngagementField(field) ? 'engagement' : (fields.get(field) as FieldType);
    if (!fitsField(fieldType, operator)) {
      errors[operatorKey] = [say(messages.in, operatorKey)];
      continue;
    }
    if (!takesValue(operator)) {
      conditions.push({ field, fieldType, operator, value: '' });
      continue;
    }
    const text = isBlank(rawValue) ? undefined : valueText(rawValue);
    if (isBlank(rawValue)) {
      errors[valueKey] = [say(messages.required, valueKey)];
      continue;
    }
    if (text === undefined) {
      errors[valueKey] = [say(messages.string, valueKey)];
      continue;
    }
    if (text.length > maxValueLength) {
      errors[valueKey] = [say(messages.maxString, valueKey, { max: maxValueLength })];
      continue;
    }
    if (fieldType === 'engagement') {
      const checked = engagementValue(operator, text, valueKey, knownSends);
      if (checked.error !== undefined) errors[valueKey] = [checked.error];
      else conditions.push({ field, fieldType, operator, value: checked.value as string });
      continue;
    }
    let failure: string | undefined;
    if (operator === 'between') {
      const bounds = rangeBounds(text);
      if (!bounds) failure = say('The :attribute field must contain two values separated by a comma.', valueKey);
      else failure = typedValueError(fieldType, bounds[0], valueKey) ?? typedValueError(fieldType, bounds[1], valueKey);
      if (bounds && !failure) {
        conditions.push({ field, fieldType, operator, value: `${bounds[0]},${bounds[1]}` });
        continue;
      }
    } else if (comparesByType(operator)) {
      failure = typedValueError(fieldType, text, valueKey);
    }
    if (failure) errors[valueKey] = [failure];
    else conditions.push({ field, fieldType, operator, value: text });
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, conditions };
}
