// The create and update fields of a single send, validated as one request: every failing field is
// named at once, shape errors and references to records of the account alike, in the spec's order.
import { contactTypeExists } from '../../shared/contact-types/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { segmentExists } from '../../shared/segments/repository';
import { getSender, type Sender } from '../../shared/senders/repository';
import { senderDetails } from '../../shared/single-sends/sender';
import type { RecipientEntry, SingleSendContent } from '../../shared/single-sends/record';
import { findDesignTemplate } from '../../shared/templates/repository';
import { unsafeDesignHtmlMessage, unsafeDesignJsonMessage } from '../../shared/rendering/design-link-rule';
import { unsubscribeGroupExists } from '../../shared/suppressions/unsubscribe-groups';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { currentTime } from '../../shared/time';
import { array, flag, format, integer, messages, string, type Field, type Infer } from '../../shared/validation';
import { abLimits, abWinnerMetrics, type AbSettings } from '../../shared/single-sends/ab-test';
import {
  abSettingWithoutSubjects,
  invalidEntryMessage,
  maxSubjectLength,
  parseAbSubjects,
  invalidTimeZoneMessage,
  parseRecipientEntries,
  parseRecipientEntry,
  resolveDesign,
  resolveSchedule,
  scheduleFieldErrors,
} from './input-rules';
import { timeZoneName } from './time-zone';

/** A design is stored in the send's item, which DynamoDB caps at 400 KB in all. */
const maxDesignKilobytes = 300;

function design(field: string): Field<string> {
  return string().check((value) =>
    Buffer.byteLength(value, 'utf8') > maxDesignKilobytes * 1024 ? `The ${field} field must not be greater than ${maxDesignKilobytes} kilobytes.` : undefined,
  );
}

const validJson = (value: string) => {
  try {
    JSON.parse(value);
    return undefined;
  } catch {
    return 'The template json field must be a valid JSON string.';
  }
};

/** A whole number from `min` to `max` (Laravel's `between` on an integer). */
function between(field: string, limits: { min: number; max: number; default: number }): Field<number> {
  return integer()
    .check((value) => (value < limits.min || value > limits.max ? format(messages.betweenNumber, { attribute: field, min: limits.min, max: limits.max }) : undefined))
    .documented({ minimum: limits.min, maximum: limits.max, default: limits.default });
}

/**
 * The subjects of an A/B test, for the API docs: read by parseAbSubjects (input-rules.ts), which names
 * each failing subject by its index.
 */
export const abSubjects = array(string().required().max(maxSubjectLength))
  .min(abLimits.subjects.min)
  .max(abLimits.subjects.max)
  .documented({
    description:
      'A/B subject test: 2 to 5 distinct subjects (`ab_subjects[0]`, `ab_subjects[1]`, ...). The test share is split evenly among them; the winner goes to the rest of the audience and becomes the send\'s `subject`.',
  });

export const schema = {
  template_id: integer().required().min(1),
  template_json: design('template json').check(validJson).check(unsafeDesignJsonMessage('template json')),
  template_html: design('template html').check(unsafeDesignHtmlMessage('template html')),
  sender_id: integer().required().min(1),
  unsubscribe_group_id: integer().required().min(1),
  single_send_name: string().required().max(255),
  subject: string().required().max(255),
  preheader: string().required().max(255),
  schedule_type: flag().required(),
  schedule_date: string(),
  schedule_time: string(),
  schedule_timezone: string()
    .check((value) => (timeZoneName(value) === undefined ? invalidTimeZoneMessage('schedule_timezone') : undefined))
    .documented({ description: 'IANA time zone (e.g. Europe/Berlin) that schedule_date and schedule_time are read in; UTC when absent' }),
  ab_test_percent: between('ab test percent', abLimits.percent).documented({ description: 'Share of the audience in the A/B test, in percent (default 20); only with ab_subjects.' }),
  ab_winner_metric: string()
    .in(abWinnerMetrics)
    .documented({ default: abLimits.defaultMetric, description: 'What the winner is judged on (default opens): people who opened (a click counts as an open) or who clicked, per recipient mailed; only with ab_subjects.' }),
  ab_wait_minutes: between('ab wait minutes', abLimits.waitMinutes).documented({ description: 'Minutes from the test share\'s last mail to the choice of the winner (default 240); only with ab_subjects.' }),
};

/** The A/B test's settings besides its subjects. */
const abSettingFields = ['ab_test_percent', 'ab_winner_metric', 'ab_wait_minutes'] as const;

/** The order fields are reported in: the spec's create and update table. */
const fieldOrder = [
  'utr',
  'template_id',
  'template_json',
  'template_html',
  'sender_id',
  'unsubscribe_group_id',
  'single_send_name',
  'subject',
  'preheader',
  'recipient_id',
  'exclude_specific_recipient_id',
  'schedule_type',
  'schedule_date',
  'schedule_time',
  'schedule_timezone',
  'ab_subjects',
  ...abSettingFields,
];

type Values = Partial<Infer<typeof schema>>;

export interface SingleSendInput {
  content: SingleSendContent;
  /** The sender named, as read: the send waits for it when it is not verified. */
  sender: Sender;
  /** When the send's scheduler job is due: now for an immediate send. */
  dispatchAt: Date;
}

const invalid = (attribute: string) => format(messages.exists, { attribute });

/** Absent, null or blank text, as a field's rules count it. */
const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** The test's settings, the defaults where not given; undefined without subjects (no test). */
function abSettings(subjects: string[] | undefined, values: Values): AbSettings | undefined {
  if (!subjects) return undefined;
  return {
    subjects,
    percent: values.ab_test_percent ?? abLimits.percent.default,
    metric: (values.ab_winner_metric as AbSettings['metric'] | undefined) ?? abLimits.defaultMetric,
    wait_minutes: values.ab_wait_minutes ?? abLimits.waitMinutes.default,
  };
}

/** The entries that name no contact type or segment of the account, keyed by their index as given. */
async function missingEntries(accountId: number, entries: RecipientEntry[], field: string, given: unknown): Promise<FieldErrors> {
  const found = await Promise.all(
    entries.map((entry) => (entry.table === 'contacts_' ? contactTypeExists(accountId, Number(entry.id)) : segmentExists(accountId, Number(entry.id)))),
  );
  const errors: FieldErrors = {};
  if (!Array.isArray(given)) return errors;
  given.forEach((item, index) => {
    const entry = parseRecipientEntry(item);
    const at = entry ? entries.findIndex((candidate) => candidate.table === entry.table && candidate.id === entry.id) : -1;
    if (at !== -1 && !found[at]) errors[`${field}.${index}`] = [invalidEntryMessage(field, index)];
  });
  return errors;
}

/**
 * The sender when it exists in the account, verified or not (a send naming an unverified one waits
 * for it); otherwise the message for sender_id.
 */
async function accountSender(accountId: number, senderId: number): Promise<Sender | string> {
  try {
    return await getSender(accountId, senderId);
  } catch (error) {
    if (error instanceof RecordNotFound) return invalid('sender id');
    throw error;
  }
}

/** Errors in the spec's field order; an array's item errors (`recipient_id.2`) sit where the array does, by index. */
function ordered(errors: FieldErrors): FieldErrors {
  const position = (key: string): [number, number] => {
    const [field, index] = key.split('.');
    return [fieldOrder.indexOf(field as string), index === undefined ? -1 : Number(index)];
  };
  const keys = Object.keys(errors).sort((a, b) => {
    const [fieldA, indexA] = position(a);
    const [fieldB, indexB] = position(b);
    return fieldA - fieldB || indexA - indexB;
  });
  return Object.fromEntries(keys.map((key) => [key, errors[key] as string[]]));
}

/** The schedule fields as parsed (each undefined when absent or refused by its own rule). */
export type ScheduleValues = Partial<Pick<Infer<typeof schema>, 'schedule_type' | 'schedule_date' | 'schedule_time' | 'schedule_timezone'>>;

/**
 * The schedule the fields name, read in their zone, with its errors added to `errors`: when the zone
 * is unknown only the fields' own errors are known, not whether the instant is fine.
 */
export function readSchedule(values: ScheduleValues, errors: FieldErrors): { schedule: ReturnType<typeof resolveSchedule> | undefined; zone: string | undefined } {
  let schedule: ReturnType<typeof resolveSchedule> | undefined;
  const zone = values.schedule_timezone === undefined ? undefined : timeZoneName(values.schedule_timezone);
  if (values.schedule_type !== undefined && errors.schedule_timezone) {
    const fieldErrors = scheduleFieldErrors({ schedule_type: values.schedule_type, schedule_date: values.schedule_date, schedule_time: values.schedule_time });
    for (const [field, messagesOf] of Object.entries(fieldErrors)) errors[field] ??= messagesOf;
  } else if (values.schedule_type !== undefined && !errors.schedule_date && !errors.schedule_time) {
    schedule = resolveSchedule(
      {
        schedule_type: values.schedule_type,
        schedule_date: values.schedule_date,
        schedule_time: values.schedule_time,
        schedule_timezone: zone,
      },
      currentTime(),
    );
    if (!schedule.ok) Object.assign(errors, schedule.errors);
  }
  return { schedule, zone };
}

/**
 * Validate a create or update body for the account; the stored content (with the sender's details
 * copied) and the dispatch time, or a ValidationError naming every failing field.
 */
export async function readSingleSendInput(accountId: number, fields: Record<string, unknown>, extraErrors: FieldErrors = {}): Promise<SingleSendInput> {
  const errors: FieldErrors = { ...extraErrors };
  const values: Values = {};
  for (const [name, field] of Object.entries(schema)) {
    const parsed = field.parse(fields[name], name);
    if (parsed.ok) Object.assign(values, { [name]: parsed.value });
    else errors[name] = [parsed.message];
  }
  const recipients = parseRecipientEntries(fields.recipient_id, 'recipient_id', true);
  const exclusions = parseRecipientEntries(fields.exclude_specific_recipient_id, 'exclude_specific_recipient_id', false);
  Object.assign(errors, recipients.errors, exclusions.errors);
  const ab = parseAbSubjects(fields.ab_subjects);
  Object.assign(errors, ab.errors);
  const subjectsGiven = !isBlank(fields.ab_subjects);
  for (const name of abSettingFields) if (!subjectsGiven && !isBlank(fields[name])) errors[name] = [abSettingWithoutSubjects(name)];

  // References to the account's records, checked for the fields whose shape passed.
  const templateId = values.template_id;
  if (templateId !== undefined && !findDesignTemplate(templateId)) errors.template_id = [invalid('template id')];
  const [sender, groupExists, missingRecipients, missingExclusions] = await Promise.all([
    values.sender_id === undefined ? undefined : accountSender(accountId, values.sender_id),
    values.unsubscribe_group_id === undefined ? undefined : unsubscribeGroupExists(accountId, values.unsubscribe_group_id),
    missingEntries(accountId, recipients.entries, 'recipient_id', fields.recipient_id),
    missingEntries(accountId, exclusions.entries, 'exclude_specific_recipient_id', fields.exclude_specific_recipient_id),
  ]);
  if (typeof sender === 'string') errors.sender_id = [sender];
  if (groupExists === false) errors.unsubscribe_group_id = [invalid('unsubscribe group id')];
  Object.assign(errors, missingRecipients, missingExclusions);

  const designChoice = resolveDesign(values.template_json, values.template_html);
  if (!designChoice.ok && !errors.template_json && !errors.template_html) Object.assign(errors, designChoice.errors);
  const { schedule, zone } = readSchedule(values, errors);

  if (Object.keys(errors).length > 0 || !schedule?.ok || !designChoice.ok || !sender || typeof sender === 'string') {
    throw new ValidationError(ordered(errors));
  }
  return {
    content: {
      template_id: templateId as number,
      sender_id: sender.id,
      unsubscribe_group_id: values.unsubscribe_group_id as number,
      recipient_id: recipients.entries,
      exclude_specific_recipient_id: exclusions.entries,
      single_send_name: values.single_send_name as string,
      subject: values.subject as string,
      preheader: values.preheader as string,
      ...(await senderDetails(sender)),
      schedule_type: values.schedule_type as 0 | 1,
      schedule_date: schedule.schedule_date,
      schedule_time: schedule.schedule_time,
      schedule_timezone: zone,
      template_json: designChoice.template_json,
      template_html: designChoice.template_html,
      ab_test: abSettings(ab.subjects, values),
    },
    sender,
    dispatchAt: schedule.dispatchAt,
  };
}
