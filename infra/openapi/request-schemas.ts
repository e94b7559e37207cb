// What each route reads from its query and its body, by route key: the operations' own field rules
// (exported by functions/*), described by Field.describe(). Inputs checked by custom code are given
// fields built from the constants and patterns that code uses. test/infra/openapi.test.ts fails when a
// route of the table has no entry here, and test/integration/openapi-conformance.test.ts checks the
// required fields against the handlers' real 422 answers, so the two cannot drift apart unnoticed.
import { contactTypeId as contactTypeIdField, doubleOptIn, name as contactTypeName, optInSenderId } from '../../functions/contact-types/operations';
import { contactId } from '../../functions/contacts/operations';
import { upsertFields } from '../../functions/contacts/upsert-operations';
import { fieldName, fieldType } from '../../functions/custom-fields/operations';
import { segmentId, contactTypeId as segmentContactTypeId, segmentName } from '../../functions/segments/operations';
import { maxNameLength, recordId as segmentRecordId } from '../../functions/segments/recipient-operations';
import { groupFields, recordId as groupRecordId } from '../../functions/unsubscribe-groups/operations';
import { recipientFields } from '../../functions/notification-recipients/operations';
import { filterSchema } from '../../functions/reference-data/operations';
import { senderFields, senderId } from '../../functions/senders/sender-input';
import { domainFields } from '../../functions/sender-domains/operations';
import { abSubjects, schema as singleSendFields } from '../../functions/single-sends/input';
import { entryPattern, maxRecipientEntries } from '../../functions/single-sends/input-rules';
import { strIds as singleSendIds, utr as singleSendUtr } from '../../functions/single-sends/operations';
import { resendSchema } from '../../functions/single-sends/resend';
import { createSchema as automationFields, strIds as automationIds, utrQuery } from '../../functions/automations/operations';
import { createSchema as stepFields } from '../../functions/automations/schedule-operations';
import { targetPattern } from '../../functions/automations/target';
import { preferenceActions } from '../../functions/public-pages/recipient-choices';
import { deleteQuery as suppressionDeleteQuery, listQuery as suppressionListQuery } from '../../functions/suppressions/operations';
import { webhookFields } from '../../functions/webhooks/operations';
import { previewQuery as singleSendPreviewQuery, testFields as singleSendTestFields } from '../../functions/test-mails/single-send-operations';
import { stepTestFields } from '../../functions/test-mails/step-operations';
import { contactSchema } from '../../shared/contacts/input';
import { pageQuery } from '../../shared/http/pages';
import { maxConditions, maxValueLength } from '../../shared/segments/conditions';
import { queryTypes, segmentOperators } from '../../shared/segments/rules';
import { engagementOperators } from '../../shared/segments/engagement-rules';
import { array, email, file, idList, integer, string, type Schema } from '../../shared/validation';
import { emailList, maxListedAddresses } from '../../shared/validation/email-list';
import type { JsonSchema } from '../../shared/validation/field';

/** The fields a route reads: from its query string, and from its body (any of the three encodings). */
export interface RequestFields {
  query?: Schema;
  body?: Schema;
}

const listedAddresses = emailList()
  .required()
  .documented({ type: 'string', description: `Comma-separated email addresses, at most ${maxListedAddresses}; each counts once.` });

/** A signed token from a link the service mailed (checked by its signature, not by a field rule). */
const token = string().required().documented({ description: 'The signed token of the link the service mailed.' });

/** A tracked link's query, followed (GET) or probed (HEAD). */
const clickLinkQuery = {
  token,
  url: string().required().documented({ format: 'uri', description: 'The link\'s target (http or https), as the mail carried it.' }),
  sig: string().required().documented({ description: 'The signature binding the target to the token (the hidden link\'s is its own).' }),
};

/** The segment rules (shared/segments/conditions.ts): three parallel arrays, one condition per index. */
const conditions: Schema = {
  select_field: array(string().required())
    .required()
    .max(maxConditions)
    .documented({ description: 'A reserved field, one of the account\'s custom fields, or `email_opened` / `email_clicked` (engagement: people\'s opens and clicks; a click counts as an open), per condition.' }),
  select_operator: array(string().required().in([...segmentOperators, ...engagementOperators]))
    .required()
    .max(maxConditions)
    .documented({ description: 'The engagement fields take only `in single send`, `not in single send`, `in last days` and `not in last days`, which no other field takes.' }),
  value: array(string().required().max(maxValueLength)).documented({
    description: 'The compared value per condition; blank for operators that take none; a single send\'s utr of the account for `in single send` and `not in single send` (otherwise `The selected value.N is invalid.`); a whole number of days from 1 to 365 for `in last days` and `not in last days`.',
  }),
  query_type: string().in(queryTypes).documented({ description: 'How the conditions combine: `and` (every one) or `or` (at least one). Left out: stored as null, which means `and`.' }),
};

/** Audience entries (functions/single-sends/input-rules.ts): `contacts_<type id>` or `segments_<segment id>`. */
const entries = () => array(string().required().regex(entryPattern)).max(maxRecipientEntries);

const singleSendBody: Schema = {
  ...singleSendFields,
  recipient_id: entries().required(),
  exclude_specific_recipient_id: entries(),
  ab_subjects: abSubjects,
};

const automationBody: Schema = {
  ...automationFields,
  automation_for: automationFields.automation_for.documented({ pattern: targetPattern.source }),
};

/** Bulk deletes of sends and automations name each record by its integer id or by its utr. */
const idsOrUtrs = { items: { type: ['integer', 'string'], minimum: 1, minLength: 1 } };

/**
 * One contact of a bulk upsert: contacts/add's fields but the type (the call's). A value contacts/add
 * would refuse refuses that contact alone, in its job's errors, never the call: so the document names
 * each field's type in words and constrains nothing (the call's 422s are the call's own).
 */
const upsertContact: JsonSchema = (() => {
  const { contact_type_id: _type, ...fields } = contactSchema('id');
  const typeOf = (schema: JsonSchema) => [schema.type ?? 'value', schema.format ? `(${String(schema.format)})` : ''].join(' ').trim();
  const properties = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, { description: `${typeOf(field.describe().schema)} as contacts/add takes it${name === 'email' ? '; always given' : name === 'country' ? '; a new address needs it' : ''}.` }]));
  return { type: 'object', properties, description: 'Matched by email within the type, case-insensitively: a match is updated with the fields given; a new address is created and needs `country`. A contact with a value contacts/add refuses is refused alone, with its messages, in the job\'s `errors`.' };
})();

const idQuery = { id: integer().required().min(1) };
const paged = pageQuery();

export const requestFields: Readonly<Record<string, RequestFields>> = {
  // Contact types
  'GET /api/contacts-type': { query: paged },
  'POST /api/contacts-type/add': { body: { name: contactTypeName, double_opt_in: doubleOptIn, opt_in_sender_id: optInSenderId } },
  'GET /api/contacts-type/view': { query: { contact_type_id: contactTypeIdField } },
  'POST /api/contacts-type/update': { body: { id: contactTypeIdField, name: contactTypeName, double_opt_in: doubleOptIn, opt_in_sender_id: optInSenderId } },
  'DELETE /api/contacts-type/delete': { query: { contact_type_id: contactTypeIdField } },

  // Contacts
  'GET /api/contacts/import-status': { query: idQuery },
  'GET /api/contacts/list': { query: paged },
  'POST /api/contacts/add': { body: contactSchema('id') },
  'GET /api/contacts/csv-sample/download': {},
  'POST /api/contacts/upload-csv': { body: { contact_type_id: integer().required().min(1), file: file().required() } },
  'GET /api/contacts/details': { query: { contact_id: contactId } },
  'POST /api/contacts/update': { body: { contact_id: contactId, ...contactSchema('id') } },
  'DELETE /api/contacts/delete': { query: { contact_id: contactId } },
  'POST /api/contacts/bulk-delete': { body: { strIds: idList() } },
  'GET /api/contacts/activity': { query: { contact_id: contactId, ...paged } },
  'POST /api/contacts/resend-confirmation': { body: { contact_id: contactId } },
  'POST /api/contacts/bulk-upsert': { body: { contact_type_id: upsertFields.contact_type_id, contacts: upsertFields.contacts.documented({ items: upsertContact }) } },

  // Custom and reserved fields
  'GET /api/reserve-fields': {},
  'GET /api/custom-fields': { query: paged },
  'POST /api/custom-fields/save': { body: { field_name: fieldName, field_type: fieldType } },
  'DELETE /api/custom-fields/delete': { query: idQuery },

  // Segments
  'GET /api/segment/list': { query: paged },
  'POST /api/segment/save': { body: { contact_type_id: segmentContactTypeId, segment_name: segmentName, ...conditions } },
  'POST /api/segment/update': {
    body: { segment_id: segmentId, contact_type_id: segmentContactTypeId, segment_name: segmentName, ...conditions },
  },
  'DELETE /api/segment/delete': { query: { segment_id: segmentId } },
  'GET /api/segment/email/list': { query: { segment_id: segmentRecordId, ...paged } },
  'POST /api/segment/email/store': {
    body: {
      segment_id: integer().required(),
      first_name: string().required().max(maxNameLength),
      last_name: string().required().max(maxNameLength),
      email: email().required(),
    },
  },
  'DELETE /api/segment/email/delete': { query: { segment_recipient_id: segmentRecordId } },

  // Unsubscribe groups
  'GET /api/unsubscribes-groups': { query: paged },
  'POST /api/unsubscribes-groups/save': { body: groupFields },
  'GET /api/unsubscribes-groups/details': { query: { id: groupRecordId } },
  'POST /api/unsubscribes-groups/update': { query: { id: groupRecordId }, body: groupFields },
  'POST /api/unsubscribes-groups/manually-add': { body: { unsubscribe_groups_id: integer().required(), email_address: listedAddresses } },
  'GET /api/unsubscribes-groups/recipients-list': { query: { groupId: groupRecordId, ...paged } },
  'DELETE /api/unsubscribes-groups/recipients-delete': { query: { id: groupRecordId } },
  'POST /api/unsubscribes-groups/recipients-bulk-delete': { body: { strIds: idList() } },

  // Global unsubscribes
  'GET /api/global-unsubscribes': { query: paged },
  'POST /api/global-unsubscribes/save': { body: { email_address: listedAddresses } },
  'DELETE /api/global-unsubscribes/delete': { query: idQuery },
  'POST /api/global-unsubscribes/bulk-delete': { body: { strIds: idList() } },

  // Suppressions (hard bounces and complaints)
  'GET /api/suppressions': { query: suppressionListQuery },
  'DELETE /api/suppressions/delete': { query: suppressionDeleteQuery },

  // Background jobs
  'GET /api/jobs': { query: paged },
  'GET /api/jobs/details': { query: idQuery },

  // Notification recipients
  'GET /api/notification-recipients': { query: paged },
  'POST /api/notification-recipient/save': { body: recipientFields },
  'DELETE /api/notification-recipient/delete': { query: idQuery },
  'POST /api/notification-recipient/bulk-delete': { body: { strIds: idList() } },

  // Outbound webhooks
  'GET /api/webhooks': {},
  'POST /api/webhooks/save': { body: webhookFields },
  'DELETE /api/webhooks/delete': { query: idQuery },

  // Templates, dynamic content, reference data
  'GET /api/get-design/template': {},
  'GET /api/get-dynamic/content': {},
  'GET /api/get/country-state-city': { query: filterSchema },

  // Senders
  'GET /api/senders': { query: paged },
  'POST /api/senders': { query: paged },
  'POST /api/sender/save': { body: senderFields },
  'GET /api/sender/details': { query: { sender_id: senderId } },
  'POST /api/sender/update': { body: { sender_id: senderId, ...senderFields } },
  'DELETE /api/sender/delete': { query: { sender_id: senderId } },
  'GET /api/sender/resend-mail': { query: { sender_id: senderId } },

  // Sender domains
  'GET /api/sender-domains': {},
  'POST /api/sender-domains/save': { body: domainFields },
  'GET /api/sender-domains/details': { query: domainFields },
  'DELETE /api/sender-domains/delete': { query: domainFields },

  // Public pages: each reads the token of the link it was reached by
  'GET /api/public/open': { query: { token } },
  'GET /api/public/preferences': { query: { token } },
  'POST /api/public/preferences': {
    body: { token, action: string().required().in(preferenceActions), group_id: integer().min(1).documented({ description: 'For leave-group and rejoin-group.' }) },
  },
  'GET /api/public/unsubscribe': { query: { token } },
  'POST /api/public/unsubscribe': {
    query: { token },
    body: { 'List-Unsubscribe': string().documented({ const: 'One-Click', description: 'RFC 8058 one-click unsubscribe.' }) },
  },
  'GET /api/assets/previews/{file}': {},
  'GET /api/public/senders/confirm': { query: { token } },
  'POST /api/public/senders/confirm': { body: { token } },
  'GET /api/public/opt-in/confirm': { query: { token } },
  'POST /api/public/opt-in/confirm': { body: { token } },
  // Where SES's custom verification mail leads after the click: plain pages, no fields.
  'GET /api/public/senders/verified': {},
  'GET /api/public/senders/verification-failed': {},
  'GET /api/public/click': { query: clickLinkQuery },
  'HEAD /api/public/click': { query: clickLinkQuery },

  // API docs: files, no fields
  'GET /api/openapi.json': {},
  'GET /api/docs': {},
  'GET /api/docs/{file}': {},

  // Single sends
  'GET /api/single-send/list': { query: paged },
  'POST /api/single/send/create': { body: singleSendBody },
  'GET /api/single/send/duplicate': { query: { utr: singleSendUtr } },
  'POST /api/single/send/duplicate': { query: { utr: singleSendUtr } },
  'GET /api/single-send/details': { query: { utr: singleSendUtr } },
  'GET /api/single-send/stats': { query: { utr: singleSendUtr } },
  'POST /api/single/send/test': { body: singleSendTestFields },
  'GET /api/single-send/preview': { query: singleSendPreviewQuery },
  'POST /api/single/send/update': { body: { utr: singleSendUtr, ...singleSendBody } },
  'DELETE /api/single/send/delete': { query: { utr: singleSendUtr } },
  'POST /api/single/send/bulk-delete': { body: { strIds: singleSendIds.documented(idsOrUtrs) } },
  'GET /api/single/send/resume': { query: { utr: singleSendUtr } },
  'POST /api/single/send/resend': { body: resendSchema },

  // Automations
  'GET /api/automations': { query: paged },
  'POST /api/automations/create': { body: automationBody },
  'GET /api/automations/duplicate': { query: utrQuery },
  'GET /api/automations/details': { query: utrQuery },
  'GET /api/automations/stats': { query: utrQuery },
  'GET /api/automations/pause': { query: utrQuery },
  'GET /api/automations/set-live': { query: utrQuery },
  'DELETE /api/automations/delete': { query: utrQuery },
  'POST /api/automations/bulk-delete': { body: { strIds: automationIds.documented(idsOrUtrs) } },
  'GET /api/automations/schedule': { query: { ...utrQuery, ...paged } },
  'POST /api/automations/schedule/create': { body: stepFields },
  'POST /api/automations/schedule/test': { body: stepTestFields },
  'DELETE /api/automations/schedule/delete': { query: utrQuery },
  'GET /api/automations/schedule/design/{token}': {},
  'GET /api/automations/schedule/image/{token}': {},
};

/** A schema of fields as one JSON Schema object: its properties and the names it requires. */
export function objectSchema(fields: Schema): JsonSchema {
  const described = Object.entries(fields).map(([name, field]) => [name, field.describe()] as const);
  const required = described.filter(([, description]) => description.required).map(([name]) => name);
  return {
    type: 'object',
    properties: Object.fromEntries(described.map(([name, description]) => [name, description.schema])),
    ...(required.length > 0 ? { required } : {}),
  };
}
