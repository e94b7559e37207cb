// What each JSON route answers on success, by route key: the exact `message` (a fixed text, a record,
// a page of records with `next_cursor`) or the spec's `{status: 'success', errors: text}` of some
// deletes, built on the records of record-schemas.ts. test/infra/openapi.test.ts fails when a JSON
// route has no entry here, and test/integration/openapi-conformance.test.ts checks a real success
// answer of every operation against its entry.
import { resendQueuedMessage } from '../../functions/contacts/confirmation-operations';
import { counters, domainStatus, integer, listOf, ref, text, uuid, withCounts } from './record-schemas';

export { recordSchemas } from './record-schemas';

type Schema = Record<string, unknown>;

const success = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: 'object',
  required: ['status', ...required],
  properties: { status: { const: 'success' }, ...properties },
});

/** `{status: 'success', message: <schema>}`. */
const message = (schema: Schema) => success({ message: schema });
/** The spec's fixed confirmation text. */
const says = (confirmation: string) => message({ const: confirmation });
/** The spec's deletes that put their confirmation in `errors`. */
const saysInErrors = (confirmation: string) => success({ errors: { const: confirmation } });
/** An object of named members, all required. */
const members = (properties: Record<string, Schema>): Schema => ({ type: 'object', required: Object.keys(properties), properties, additionalProperties: true });
/** `{<name>: [items], next_cursor}`: a page of a list (shared/http/pages.ts); null cursor on the last page. */
const page = (name: string, items: Schema) => message(members({ [name]: listOf(items), next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last.' } }));
const utrAnswer = message(members({ utr: uuid }));

const added = says('Added Successfully');
const deleted = says('Deleted Successfully');
const updated = says('Updated Successfully');

/** The success answer of every JSON route, by route key. */
export const successSchemas: Readonly<Record<string, Schema>> = {
  'GET /api/contacts-type': page('contactTypes', withCounts('ContactType', ['contacts_count'])),
  'POST /api/contacts-type/add': added,
  'GET /api/contacts-type/view': message(members({ contactType: ref('ContactType') })),
  'POST /api/contacts-type/update': updated,
  'DELETE /api/contacts-type/delete': saysInErrors('Deleted Successfully'),

  'GET /api/contacts/import-status': message(members({ import: ref('ContactImport') })),
  'GET /api/contacts/list': page('contacts', { allOf: [ref('Contact'), { type: 'object', required: ['contact_type'], properties: { contact_type: ref('ContactType') } }] }),
  'POST /api/contacts/add': says('Contact Added Successfully'),
  'POST /api/contacts/upload-csv': {
    ...success(
      {
        message: { const: 'Imported Successfully' },
        import_id: integer,
        imported: { type: 'integer', minimum: 0 },
        updated: { type: 'integer', minimum: 0 },
        failed: { type: 'integer', minimum: 0 },
        errors: listOf(ref('ImportRowError')),
      },
      ['message', 'import_id'],
    ),
    description: 'Small files are imported during the request and answer their counts and row errors; larger ones only `import_id` (see contacts/import-status).',
  },
  'GET /api/contacts/details': message(members({ contact: ref('Contact') })),
  'POST /api/contacts/update': says('Contact Updated Successfully'),
  'DELETE /api/contacts/delete': deleted,
  'POST /api/contacts/bulk-delete': deleted,
  'GET /api/contacts/activity': {
    ...page('activity', ref('ContactActivity')),
    description: 'Newest first. `limit` counts stored entries: a `sent` entry whose mail was delivered comes with its `delivered` line, so a page holds up to twice `limit` lines.',
  },
  'POST /api/contacts/resend-confirmation': {
    ...says(resendQueuedMessage),
    description: 'The pending contact is owed its confirmation mail again; a mail it is still owed from before stays the one that goes.',
  },
  'POST /api/contacts/bulk-upsert': {
    ...message(members({ job_id: integer })),
    description: 'The contacts are upserted by a background job (kind `contact-upsert`): follow it with jobs/details.',
  },

  'GET /api/reserve-fields': message(members({ reservedFields: listOf(ref('FieldDefinition')) })),
  'GET /api/custom-fields': page('customFields', ref('FieldDefinition')),
  'POST /api/custom-fields/save': added,
  'DELETE /api/custom-fields/delete': deleted,

  'GET /api/segment/list': page('segments', withCounts('Segment', ['segment_emails_count'])),
  'POST /api/segment/save': added,
  'POST /api/segment/update': updated,
  'DELETE /api/segment/delete': saysInErrors('Deleted Successfully'),
  'GET /api/segment/email/list': page('contactEmails', ref('SegmentRecipient')),
  'POST /api/segment/email/store': added,
  'DELETE /api/segment/email/delete': deleted,

  'GET /api/unsubscribes-groups': page('unsubscribesGroups', withCounts('UnsubscribeGroup', ['unsubscribe_clients_count'])),
  'POST /api/unsubscribes-groups/save': says('Saved Successfully'),
  'GET /api/unsubscribes-groups/details': message(members({ unsubscribesGroup: ref('UnsubscribeGroup') })),
  'POST /api/unsubscribes-groups/update': updated,
  'POST /api/unsubscribes-groups/manually-add': added,
  'GET /api/unsubscribes-groups/recipients-list': page('recipients', ref('GroupRecipient')),
  'DELETE /api/unsubscribes-groups/recipients-delete': deleted,
  'POST /api/unsubscribes-groups/recipients-bulk-delete': deleted,

  'GET /api/global-unsubscribes': page('unSubscribers', ref('GlobalUnsubscribe')),
  'POST /api/global-unsubscribes/save': added,
  'DELETE /api/global-unsubscribes/delete': deleted,
  'POST /api/global-unsubscribes/bulk-delete': deleted,

  'GET /api/suppressions': page('suppressions', ref('Suppression')),
  'DELETE /api/suppressions/delete': deleted,

  'GET /api/jobs': page('jobs', ref('Job')),
  'GET /api/jobs/details': message(members({ job: { allOf: [ref('Job'), ref('ContactUpsertCounts')] } })),

  'GET /api/notification-recipients': page('notifications', ref('NotificationRecipient')),
  'POST /api/notification-recipient/save': added,
  'DELETE /api/notification-recipient/delete': deleted,
  'POST /api/notification-recipient/bulk-delete': deleted,

  'GET /api/webhooks': message(members({ webhooks: listOf(ref('Webhook')) })),
  'POST /api/webhooks/save': message({
    ...members({ id: integer, secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' } }),
    description: 'The webhook\'s id and its signing secret, shown only here.',
  }),
  'DELETE /api/webhooks/delete': deleted,

  'GET /api/get-design/template': message(members({ templates: listOf(ref('DesignTemplate')) })),
  'GET /api/get-dynamic/content': message(members({ contents: listOf(text) })),
  'GET /api/get/country-state-city': message(members({ countries: listOf(ref('Country')), states: listOf(ref('State')), cities: listOf(ref('City')) })),

  'GET /api/senders': page('senders', ref('Sender')),
  'POST /api/senders': page('senders', ref('Sender')),
  'POST /api/sender/save': added,
  'GET /api/sender/details': message(members({ sender: ref('Sender') })),
  'POST /api/sender/update': updated,
  'DELETE /api/sender/delete': saysInErrors('Deleted Successfully'),
  'GET /api/sender/resend-mail': says('Verification Mail Send'),

  'GET /api/sender-domains': message(members({ senderDomains: listOf(ref('SenderDomain')) })),
  'POST /api/sender-domains/save': message({
    ...members({ domain: text, status: domainStatus, dkim_records: listOf(ref('DkimRecord')) }),
    description: 'The domain, pending, with the CNAME records to publish.',
  }),
  'GET /api/sender-domains/details': message(members({ senderDomain: ref('SenderDomain') })),
  'DELETE /api/sender-domains/delete': deleted,

  'GET /api/single-send/list': page('singleSends', ref('SingleSend')),
  'POST /api/single/send/create': utrAnswer,
  'GET /api/single/send/duplicate': says('Duplicated Successfully'),
  'POST /api/single/send/duplicate': says('Duplicated Successfully'),
  'GET /api/single-send/details': message(
    members({
      singleSend: {
        ...listOf({
          allOf: [
            ref('SingleSend'),
            { type: 'object', required: ['resend_of'], properties: { resend_of: { oneOf: [ref('ResendOf'), { type: 'null' }] }, ab_test: ref('SingleSendAbTest') } },
          ],
        }),
        minItems: 1,
        maxItems: 1,
        description: 'The one send, in an array as the spec has it; `resend_of` names a resend\'s original (null for any other send); `ab_test` only on a send with an A/B subject test.',
      },
    }),
  ),
  'GET /api/single-send/stats': message(
    members({
      stats: members({
        ...counters(['audience', 'processed', 'delivered', 'opens', 'unique_opens', 'machine_opens', 'clicks', 'unique_clicks', 'bot_clicks', 'bounces', 'complaints', 'unsubscribes', 'uncertain']),
        machine_opens: { type: 'integer', minimum: 0, description: 'Opens by a machine (Apple Mail Privacy Protection, scanners), every one admitted; `opens` and `unique_opens` count people only.' },
        bot_clicks: { type: 'integer', minimum: 0, description: 'Clicks by a bot (HEAD, the hidden link, within 2 s of the send, no User-Agent, a scanner), every one admitted; `clicks`, `unique_clicks` and `links` count people only.' },
      }),
      links: listOf(ref('LinkClicks')),
    }),
  ),
  'POST /api/single/send/update': utrAnswer,
  'DELETE /api/single/send/delete': deleted,
  'POST /api/single/send/resend': { ...utrAnswer, description: 'The new send, a resend of `utr`: its recipients are computed at its own dispatch.' },
  'GET /api/single/send/resume': says('Single send resumed; it continues with the recipients not yet mailed.'),
  'POST /api/single/send/bulk-delete': deleted,

  'POST /api/single/send/test': says('Test Mail Sent'),
  'GET /api/single-send/preview': message(members({ preview: ref('MailPreview') })),
  'POST /api/automations/schedule/test': says('Test Mail Sent'),

  'GET /api/automations': page('automations', withCounts('Automation', ['automation_schedule_count'])),
  'POST /api/automations/create': utrAnswer,
  'GET /api/automations/duplicate': utrAnswer,
  'GET /api/automations/details': message(
    members({
      automation: {
        allOf: [
          ref('Automation'),
          {
            type: 'object',
            properties: {
              paused_reason: { type: 'string', description: 'Why the automation paused itself (its bounce or complaint rate); only while paused for it.' },
              held: {
                type: 'object',
                description: 'Only while a step\'s mails wait: its sender is not verified, or the account\'s SES tenant is paused.',
                required: ['reason', 'message'],
                properties: { reason: { enum: ['sender-unverified', 'tenant-paused'] }, message: { type: 'string' } },
              },
            },
          },
        ],
      },
    }),
  ),
  'GET /api/automations/stats': message(members({ steps: listOf(ref('StepStatistics')) })),
  'GET /api/automations/pause': says('Automation Paused Successfully'),
  'GET /api/automations/set-live': says('Automation has been set live'),
  'DELETE /api/automations/delete': deleted,
  'POST /api/automations/bulk-delete': deleted,
  'GET /api/automations/schedule': page('automation_schedules', ref('AutomationStep')),
  'POST /api/automations/schedule/create': says('Schedule Added'),
  'DELETE /api/automations/schedule/delete': deleted,
};
