// The pure rules of single-send input: audience entries (`contacts_3`), the schedule's date and time
// (UTC, or in `schedule_timezone`) and the either-or rule of the custom design, each answering
// Laravel-worded messages.
import type { RecipientEntry, RecipientTable } from '../../shared/single-sends/record';
import { abLimits } from '../../shared/single-sends/ab-test';
import { attributeName, format, messages } from '../../shared/validation';
import { zonedMoment } from './time-zone';

/** Most audience entries one send names; keeps a send's item and its validation reads small. */
export const maxRecipientEntries = 100;

export const entryPattern = /^(contacts|segments)_([1-9]\d{0,14})$/;

/** `contacts_3` -> `{id: '3', table: 'contacts_'}`; undefined for anything else. */
export function parseRecipientEntry(value: unknown): RecipientEntry | undefined {
  if (typeof value !== 'string') return undefined;
  const match = entryPattern.exec(value.trim());
  if (!match) return undefined;
  return { id: match[2] as string, table: `${match[1]}_` as RecipientTable };
}

export function invalidEntryMessage(field: string, index: number): string {
  return format(messages.exists, { attribute: `${attributeName(field)}.${index}` });
}

/**
 * The well-formed entries (each once), and errors keyed as Laravel keys an array's item rules:
 * `recipient_id` for the list as a whole, `recipient_id.2` for one entry.
 */
export interface EntriesResult {
  entries: RecipientEntry[];
  errors: Record<string, string[]>;
}

/**
 * An audience list: an array of entries, each `contacts_<id>` or `segments_<id>`. Every malformed
 * entry is named (`The selected recipient id.2 is invalid.`); the same entry twice counts once.
 */
export function parseRecipientEntries(value: unknown, field: string, required: boolean): EntriesResult {
  const attribute = attributeName(field);
  const fail = (message: string): EntriesResult => ({ entries: [], errors: { [field]: [message] } });
  const absent = value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
  if (absent) return required ? fail(format(messages.required, { attribute })) : { entries: [], errors: {} };
  if (!Array.isArray(value)) return fail(format(messages.array, { attribute }));
  if (value.length > maxRecipientEntries) return fail(format(messages.maxArray, { attribute, max: maxRecipientEntries }));
  const errors: Record<string, string[]> = {};
  const entries = new Map<string, RecipientEntry>();
  value.forEach((item: unknown, index) => {
    const entry = parseRecipientEntry(item);
    if (!entry) errors[`${field}.${index}`] = [invalidEntryMessage(field, index)];
    else entries.set(`${entry.table}${entry.id}`, entry);
  });
  return { entries: [...entries.values()], errors };
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timePattern = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

/** A calendar date `YYYY-MM-DD` (PHP's `Y-m-d`, strict as Laravel's date_format); undefined when not one. */
export function parseScheduleDate(text: string): string | undefined {
  const match = datePattern.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && year >= 1 ? text : undefined;
}

/** A 24-hour time `HH:MM` or `HH:MM:SS`, answered as `HH:MM:SS`; undefined when not one. */
export function parseScheduleTime(text: string): string | undefined {
  const match = timePattern.exec(text);
  if (!match) return undefined;
  return `${match[1]}:${match[2]}:${match[3] ?? '00'}`;
}

/** The moment a scheduled send is due: its date and time read as UTC. */
export function scheduledMoment(date: string, time: string): Date {
  return new Date(`${date}T${time}Z`);
}

/** Laravel's `timezone` rule, in the 10.x wording of shared/validation/messages.ts. */
export function invalidTimeZoneMessage(field: string): string {
  return `The ${attributeName(field)} field must be a valid timezone.`;
}

/** A local time the clocks skip in the zone (spring forward): refused rather than moved, so no send goes at a time nobody chose. */
export function skippedTimeMessage(zone: string, date: string): string {
  return `The schedule time field must be a time that exists in ${zone} on ${date}: the clocks skip it.`;
}

export type ScheduleInput = {
  schedule_type: 0 | 1;
  schedule_date: string | undefined;
  schedule_time: string | undefined;
  /** A valid IANA zone name (timeZoneName); undefined: UTC. */
  schedule_timezone?: string;
};

export type ScheduleResult =
  | { ok: true; schedule_date: string; schedule_time: string; dispatchAt: Date }
  | { ok: false; errors: Record<string, string[]> };

const immediate = { schedule_date: '0000-00-00', schedule_time: '00:00:00' };

/** A scheduled send's date and time, each read when present and well-formed, with the errors of the others. */
function readScheduleFields(input: ScheduleInput): { date?: string; time?: string; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const requiredWhenScheduled = (field: string) => `The ${attributeName(field)} field is required when schedule type is 1.`;
  let date: string | undefined;
  let time: string | undefined;
  if (input.schedule_date === undefined) errors.schedule_date = [requiredWhenScheduled('schedule_date')];
  else if (!(date = parseScheduleDate(input.schedule_date))) {
    errors.schedule_date = [format(messages.dateFormat, { attribute: 'schedule date', format: 'Y-m-d' })];
  }
  if (input.schedule_time === undefined) errors.schedule_time = [requiredWhenScheduled('schedule_time')];
  else if (!(time = parseScheduleTime(input.schedule_time))) {
    errors.schedule_time = [format(messages.dateFormat, { attribute: 'schedule time', format: 'H:i, H:i:s' })];
  }
  return { date, time, errors };
}

/**
 * The errors of the date and time fields themselves (missing, malformed), when the zone they are read
 * in is not known: whether the instant is after now, or exists at all, cannot be said then.
 */
export function scheduleFieldErrors(input: ScheduleInput): Record<string, string[]> {
  return input.schedule_type === 0 ? {} : readScheduleFields(input).errors;
}

/**
 * The stored schedule and the moment to dispatch. Immediate sends ignore any date and time given
 * (they are stored as the spec's zero values); scheduled ones need both, valid, and in the future,
 * read as a wall clock in `schedule_timezone` (the earlier instance of a time that happens twice).
 */
export function resolveSchedule(input: ScheduleInput, now: Date): ScheduleResult {
  if (input.schedule_type === 0) return { ok: true, ...immediate, dispatchAt: now };
  const { date, time, errors } = readScheduleFields(input);
  if (date === undefined || time === undefined) return { ok: false, errors };
  const zone = input.schedule_timezone;
  const dispatchAt = zone === undefined ? scheduledMoment(date, time) : zonedMoment(date, time, zone);
  if (dispatchAt === undefined) return { ok: false, errors: { schedule_time: [skippedTimeMessage(zone as string, date)] } };
  if (dispatchAt.getTime() <= now.getTime()) {
    return { ok: false, errors: { schedule_date: [format(messages.afterNow, { attribute: 'schedule date' })] } };
  }
  return { ok: true, schedule_date: date, schedule_time: time, dispatchAt };
}

/**
 * The custom design: HTML or JSON, never both (Laravel's `prohibits` on template_html). The one
 * given is kept and the other stored empty; neither given means the library template's own design.
 */
export function resolveDesign(json: string | undefined, html: string | undefined):
  | { ok: true; template_json: string | null; template_html: string | null }
  | { ok: false; errors: Record<string, string[]> } {
  if (json !== undefined && html !== undefined) {
    return { ok: false, errors: { template_html: ['The template html field prohibits template json from being present.'] } };
  }
  if (html !== undefined) return { ok: true, template_json: '', template_html: html };
  if (json !== undefined) return { ok: true, template_json: json, template_html: '' };
  return { ok: true, template_json: null, template_html: null };
}

/** Longest subject, as the send's own `subject`. */
export const maxSubjectLength = 255;

/**
 * The subjects of an A/B test (`ab_subjects[0]`, `ab_subjects[1]`, ...): 2 to 5, each a subject as
 * `subject` takes it, no two the same (trimmed). Errors keyed as Laravel keys an array and its items.
 */
export function parseAbSubjects(value: unknown): { subjects: string[] | undefined; errors: Record<string, string[]> } {
  const field = 'ab_subjects';
  const attribute = attributeName(field);
  const fail = (key: string, message: string) => ({ subjects: undefined, errors: { [key]: [message] } });
  if (value === undefined || value === null || value === '') return { subjects: undefined, errors: {} };
  if (!Array.isArray(value)) return fail(field, format(messages.array, { attribute }));
  const { min, max } = abLimits.subjects;
  if (value.length < min || value.length > max) return fail(field, format(messages.betweenArray, { attribute, min, max }));
  const errors: Record<string, string[]> = {};
  const subjects: string[] = [];
  value.forEach((item: unknown, index) => {
    const itemAttribute = `${attribute}.${index}`;
    const key = `${field}.${index}`;
    const text = typeof item === 'string' ? item.trim() : undefined;
    if (item === undefined || item === null || text === '') errors[key] = [format(messages.required, { attribute: itemAttribute })];
    else if (text === undefined) errors[key] = [format(messages.string, { attribute: itemAttribute })];
    else if ([...text].length > maxSubjectLength) errors[key] = [format(messages.maxString, { attribute: itemAttribute, max: maxSubjectLength })];
    else if (subjects.includes(text)) errors[key] = [format(messages.distinct, { attribute: itemAttribute })];
    else subjects.push(text);
  });
  return Object.keys(errors).length > 0 ? { subjects: undefined, errors } : { subjects, errors };
}

/** A setting of the A/B test given without its subjects: it would set nothing, so it is refused. */
export function abSettingWithoutSubjects(field: string): string {
  return `The ${attributeName(field)} field is prohibited when ab subjects is not present.`;
}
