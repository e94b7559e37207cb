// The records the API's answers carry, as the OpenAPI document's component schemas
// (`#/components/schemas/<name>`): the spec's shapes (contact, segment, sender, single send,
// automation, step...) and those of the routes the spec does not cover (webhook, suppression, job,
// import, sender domain). Each requires every field the record always carries, with its type, and
// leaves `additionalProperties` open, so adding a field is not a breaking change. Where the spec and
// the stored records differ, the schema follows what the handlers answer (null step designs,
// optional sender address parts).
import { waitingTypes } from '../../shared/automations/steps';
import { stepCounters } from '../../shared/automations/step-counters';
import { resendAudiences, singleSendStatus } from '../../shared/single-sends/record';
import { activityEvents } from '../../shared/contacts/activity';
import type { ImportStatus } from '../../shared/contacts/import-jobs';
import type { DomainStatus } from '../../shared/identities/identities';
import type { JobKind, JobStatus } from '../../shared/jobs/repository';
import { bounceKinds } from '../../shared/suppressions/bounces';
import { webhookEvents } from '../../shared/webhooks/repository';

type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const integer: Schema = { type: 'integer' };
export const text: Schema = { type: 'string' };
const flag: Schema = { enum: [0, 1], description: '0 or 1.' };
const orNull = (schema: Schema): Schema => ({ ...schema, type: [schema.type, 'null'] });
export const listOf = (items: Schema): Schema => ({ type: 'array', items });

/** `created_at` and the like: ISO 8601 UTC with microseconds. */
export const timestamp: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$', description: 'UTC, with microseconds.' };
/** `sent_at`, `live_at`, `send_at`: `YYYY-MM-DD HH:MM:SS`. */
const sqlTime: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: '`YYYY-MM-DD HH:MM:SS`, UTC.' };
export const uuid: Schema = { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' };

/** Every value of a union type, as an enum: the compiler refuses a missing or unknown value. */
const every = <T extends string>(values: Record<T, true>): Schema => ({ enum: Object.keys(values) });

export const domainStatus = every<DomainStatus>({ pending: true, verified: true, failed: true });

/** A record: every listed field required, extra fields allowed. */
function record(description: string, properties: Record<string, Schema>): Schema {
  return { type: 'object', description, required: Object.keys(properties), properties, additionalProperties: true };
}

/** A record with fields it carries only sometimes. */
function withOptional(schema: Schema, optional: Record<string, Schema>): Schema {
  return { ...schema, properties: { ...(schema.properties as Record<string, Schema>), ...optional } };
}

/** A record as a list shows it: the record and the count fields the spec adds to list output. */
export const withCounts = (name: string, counts: string[]): Schema => ({
  allOf: [ref(name), { type: 'object', required: counts, properties: Object.fromEntries(counts.map((count) => [count, { type: 'integer', minimum: 0 }])) }],
});

export const counters = (names: readonly string[]): Record<string, Schema> => Object.fromEntries(names.map((name) => [name, { type: 'integer', minimum: 0 }]));

const stamps = { created_at: timestamp, updated_at: timestamp };
const addressEntry = { id: integer, user_id: integer, unsubscribe_groups_id: orNull(integer), email_address: text, ...stamps };
const audienceEntry = record('An audience entry: `contacts_<type id>` or `segments_<segment id>`, split.', { id: text, table: { enum: ['contacts_', 'segments_'] } });

/** The records the answers carry, as components of the document (`#/components/schemas/<name>`). */
export const recordSchemas: Readonly<Record<string, Schema>> = {
  GlobalUnsubscribe: record('A global unsubscribe entry; `unsubscribe_groups_id` is null when it belongs to no group.', addressEntry),
  GroupRecipient: record('An address unsubscribed from one group.', { ...addressEntry, unsubscribe_groups_id: integer }),
  Segment: record('A segment: its rules as three parallel arrays.', {
    id: integer,
    user_id: integer,
    contact_type_id: integer,
    segment_name: text,
    select_field: listOf(text),
    select_operator: listOf(text),
    value: listOf(text),
    query_type: orNull({ type: 'string', enum: ['and', 'or', null], description: 'How the conditions combine; null (saved without one) means `and`.' }),
    deleted_at: orNull(timestamp),
    ...stamps,
  }),
  SegmentRecipient: record('An address added to a segment by hand.', {
    id: integer,
    user_id: integer,
    segment_id: integer,
    contact_id: orNull(integer),
    first_name: text,
    last_name: text,
    email: text,
    country: orNull(text),
    state: orNull(text),
    city: orNull(text),
    address_line1: orNull(text),
    ...stamps,
    fullname: text,
  }),
  UnsubscribeGroup: record('An unsubscribe group; `is_display` 1 shows it on the preferences page.', {
    id: integer,
    user_id: integer,
    rand_id: { type: 'string', pattern: '^\\d+$' },
    group_name: text,
    description: text,
    is_display: flag,
    ...stamps,
  }),
  ContactType: record('A contact type. With `double_opt_in` 1, a contact created in it is `pending` until it presses the button of the confirmation mail sent from `opt_in_sender_id`.', {
    id: integer,
    user_id: integer,
    name: text,
    double_opt_in: flag,
    opt_in_sender_id: orNull(integer),
    deleted_at: orNull(timestamp),
    ...stamps,
  }),
  Contact: record('A contact; `country` is the country\'s name in lists and its id as text in details.', {
    id: integer,
    user_id: integer,
    contact_type_id: integer,
    first_name: text,
    last_name: text,
    email: text,
    alt_email: orNull(text),
    country: text,
    state: text,
    city: text,
    address_line1: text,
    address_line2: text,
    state_province_region: text,
    postal_code: text,
    custom_field: {
      type: ['object', 'null'],
      description: 'By custom field name: `{field_name, field_value}`.',
      additionalProperties: record('A custom field value.', { field_name: text, field_value: orNull(text) }),
    },
    subscription_status: { enum: ['confirmed', 'pending'], description: '`pending` from its creation in a double opt-in type until it confirms; no send or automation mails it meanwhile.' },
    confirmed_at: { ...orNull(timestamp), description: 'When it pressed the confirmation button; null for a contact that never had to.' },
    deleted_at: orNull(timestamp),
    ...stamps,
    fullname: text,
  }),
  FieldDefinition: record('A reserved (`user_id` null, `is_reserved` 1) or custom field.', {
    id: integer,
    user_id: orNull(integer),
    field_name: { type: 'string', pattern: '^[A-Za-z0-9_]+$' },
    field_type: text,
    is_reserved: flag,
    created_at: orNull(timestamp),
    updated_at: orNull(timestamp),
  }),
  DesignTemplate: record('A design template; id 1 is the blank one.', {
    id: integer,
    template_name: text,
    preview_image: text,
    json_code: text,
    html_code: text,
    is_blank: flag,
    created_at: orNull(timestamp),
    updated_at: orNull(timestamp),
  }),
  SingleSend: record('A single send; `status` 0 initiate, 1 ready to send, 2 running, 3 completed, 4 failed (it could not be resumed).', {
    id: integer,
    user_id: integer,
    template_id: integer,
    sender_id: integer,
    unsubscribe_group_id: integer,
    recipient_id: listOf(audienceEntry),
    exclude_specific_recipient_id: listOf(audienceEntry),
    single_send_name: text,
    subject: text,
    preheader: text,
    from_sender: text,
    reply_to: text,
    sender_name: orNull(text),
    sender_address: orNull(text),
    schedule_type: flag,
    schedule_date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    schedule_time: { type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}$' },
    status: { enum: Object.values(singleSendStatus) },
    utr: uuid,
    template_json: orNull(text),
    template_html: orNull(text),
    ...counters(['triggered', 'delivered', 'unique_opens', 'total_opens', 'bounces', 'unsubscribes']),
    unique_open_token: { type: 'object', additionalProperties: text },
    sent_at: orNull(sqlTime),
    ...stamps,
  }),
  SingleSendAbTest: withOptional(
    record(
      'A send\'s A/B subject test (`single-send/details` only, on sends created with `ab_subjects`). `status`: null until the send starts, `testing` while the test share is mailed, `waiting` until the winner is chosen, `winner_sent` once the rest of the audience gets the winner, `skipped` when the audience was too small for 10 recipients per subject (everyone got the first subject; `skipped_reason` says why).',
      {
        status: { enum: ['testing', 'waiting', 'winner_sent', 'skipped', null] },
        metric: { enum: ['opens', 'clicks'] },
        percent: integer,
        wait_minutes: integer,
        variants: listOf(
          record('One subject\'s part of the test share: recipients mailed it, and the people among them who opened (a click counts as an open) or clicked.', {
            subject: text,
            ...counters(['recipients', 'unique_opens', 'unique_clicks']),
          }),
        ),
        winner_index: orNull(integer),
        decided_at: { type: ['string', 'null'], description: 'ISO 8601: when the winner was chosen, or the test skipped.' },
      },
    ),
    { skipped_reason: { ...text, description: 'Only when `status` is `skipped`: why.' } },
  ),
  Automation: record('An automation; `status` 0 draft, 1 live.', {
    id: integer,
    user_id: integer,
    automation_for: integer,
    automation_for_table: { enum: ['contacts_', 'segments_'] },
    automation_name: orNull(text),
    exit_criteria: integer,
    unsubscribe_group_id: text,
    automation_type: integer,
    utr: uuid,
    status: flag,
    live_at: orNull(sqlTime),
    ...counters(['total_triggered', 'total_delivered', 'total_unique_opens', 'total_opens', 'total_bounces', 'total_unsubscribe']),
    deleted_at: orNull(timestamp),
    ...stamps,
  }),
  AutomationStep: record('One email of an automation; `design_url` and `image` are signed links under the API.', {
    id: integer,
    user_id: integer,
    automation_id: integer,
    sender_id: integer,
    template_id: integer,
    subject: text,
    waiting_period: integer,
    waiting_type: { enum: [...waitingTypes] },
    utr: uuid,
    preview_img: text,
    template_json: orNull(text),
    template_html: orNull(text),
    ...stamps,
    design_url: { type: 'string', format: 'uri' },
    image: { type: 'string', format: 'uri' },
  }),
  NotificationRecipient: record('An address the account\'s notifications go to.', { id: integer, user_id: integer, email_address: text, email_owner: text, ...stamps }),
  Sender: record('A sender; `is_verified` is 0 until its address is confirmed.', {
    id: integer,
    user_id: integer,
    from_name: text,
    from_email: text,
    reply_to_email: text,
    country_id: integer,
    state_id: orNull(integer),
    city_id: orNull(integer),
    zip_code: orNull(text),
    company_address: text,
    company_address2: orNull(text),
    nickname: text,
    is_verified: flag,
    utr: { type: 'string', pattern: '^[A-Za-z0-9]+$' },
    send_at: orNull(sqlTime),
    ...stamps,
    deleted_at: orNull(timestamp),
  }),
  Webhook: record('An outbound webhook: where events are posted, and which.', {
    id: integer,
    url: { type: 'string', format: 'uri' },
    events: listOf({ enum: [...webhookEvents] }),
    created_at: timestamp,
  }),
  Suppression: record('An address that hard-bounced or complained: no mail goes to it.', {
    email: text,
    type: { enum: [...bounceKinds] },
    reason: orNull(text),
    created_at: timestamp,
  }),
  Job: record('A background job of the account and how far it got.', {
    id: integer,
    kind: every<JobKind>({ 'contact-type-delete': true, 'segment-rebuild': true, 'segment-purge': true, 'automation-enrol': true, 'single-send-link-purge': true, 'contact-upsert': true, 'segment-window-slide': true, 'suppression-state-backfill': true }),
    target: text,
    status: every<JobStatus>({ queued: true, running: true, completed: true, superseded: true, failed: true }),
    processed: { type: 'integer', minimum: 0 },
    message: text,
    ...stamps,
    finished_at: orNull(timestamp),
  }),
  // Not a record: its fields are there only on a `contact-upsert` job, so none is required.
  ContactUpsertCounts: {
    type: 'object',
    description: 'What the details of a `contact-upsert` job add (and only its): its counts so far (`processed` counts every contact handled, refused ones included) and the first 1,000 refused contacts, in index order.',
    properties: { ...counters(['created', 'updated', 'failed']), errors: listOf(ref('ContactUpsertError')) },
    additionalProperties: true,
  },
  ContactUpsertError: record('Why one contact of a bulk upsert was not written: its index in the call, its email as given, and the messages contacts/add gives, by field.', {
    index: { type: 'integer', minimum: 0 },
    email: orNull(text),
    errors: { type: 'object', additionalProperties: listOf(text) },
  }),
  ImportRowError: record('Why one CSV row was not imported.', { row: { type: 'integer', minimum: 1 }, messages: listOf(text) }),
  ContactImport: record('A CSV import and its counts so far.', {
    id: integer,
    status: every<ImportStatus>({ queued: true, running: true, completed: true, failed: true }),
    contact_type_id: integer,
    ...counters(['total_rows', 'processed_rows', 'imported', 'updated', 'failed']),
    errors: listOf(ref('ImportRowError')),
    ...stamps,
  }),
  Country: record('A country of the reference data.', { id: integer, name: text, iso2: text, iso3: text }),
  State: record('A state of the reference data.', { id: integer, name: text, country_id: integer }),
  City: record('A city of the reference data.', { id: integer, name: text, state_id: integer, country_id: integer }),
  ResendOf: record('A resend\'s original single send, and which of its recipients the resend mails.', { utr: uuid, audience: { enum: [...resendAudiences] } }),
  ContactActivity: record('One event of a contact\'s mail or consent; fields that do not apply are null. For a mail of an automation step, `utr` is the step\'s and `automation_utr` the automation\'s.', {
    event: { enum: [...activityEvents] },
    utr: orNull(uuid),
    automation_utr: orNull(uuid),
    subject: orNull(text),
    url: orNull(text),
    at: timestamp,
  }),
  LinkClicks: record('A tracked link of a send and its clicks.', { url: text, ...counters(['clicks', 'unique_clicks']) }),
  StepStatistics: record('One automation step\'s counters.', { id: integer, subject: text, ...counters(stepCounters) }),
  DkimRecord: record('A DNS record to publish for Easy DKIM.', { name: text, type: { const: 'CNAME' }, value: text }),
  SenderDomain: record('A sender domain and its verification state.', {
    domain: text,
    status: domainStatus,
    dkim_records: listOf(ref('DkimRecord')),
    created_at: timestamp,
  }),
  MailPreview: record('A mail as a recipient would get it.', { subject: text, html: text, text }),
};
