// A tour of every JSON operation of the API, family by family, each on a fresh account: the calls a
// client reading the OpenAPI document would make, in an order where each one succeeds (a record is
// listed, read, changed, then deleted). test/integration/openapi-conformance.test.ts checks every
// answer against the document's per-operation success schema and that the tour left no route out.
import { randomBytes } from 'node:crypto';
import { addContactType } from '../../shared/contact-types/repository';
import { addBouncedAddress } from '../../shared/suppressions/bounces';
import { singleSendStateKey } from '../../shared/single-sends/keys';
import { singleSendStatus } from '../../shared/single-sends/record';
import { updateExistingItem } from '../../shared/table/records';
import type { HttpFamily } from '../../shared/routes';
import { newAccount } from './accounts';
import { multipart, type Body, type Keys } from './events';
import { jobsSettled } from './jobs';
import { place, senderInput } from './senders';
import { addTestSender, newSendingAccount, utcDateAndTime } from './single-sends';

export interface TourCall {
  method: string;
  path: string;
  query?: Record<string, string | number>;
  body?: Record<string, unknown>;
  /** A body in another encoding (a file upload): sent as is, its fields not checked against the document. */
  form?: Body;
}

/** Calls a route as `keys` through `family`'s handler, checks its answer is a documented 200 and returns its body. */
export type Visit = (keys: Keys, family: HttpFamily, call: TourCall) => Promise<Record<string, unknown>>;

type Message = Record<string, unknown>;
const messageOf = (body: Record<string, unknown>) => body.message as Message;
type Listed = { id: number; utr: string };
/** The record at `index` of a listed array (the first by default); throws when the list is shorter. */
function itemOf(list: unknown, index = 0): Listed {
  const item = (list as Listed[])[index];
  if (!item) throw new Error(`the list has no item ${index}: ${JSON.stringify(list)}`);
  return item;
}

const contactInput = (contactTypeId: number, email: string) => ({
  contact_type_id: contactTypeId,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email,
  country: place.usa,
  city: 'Kochi',
});

/** A date a week ahead: a scheduled send that the tour deletes long before it is due. */
function nextWeek(): { schedule_date: string; schedule_time: string } {
  const { date, time } = utcDateAndTime(new Date(Date.now() + 7 * 24 * 3600 * 1000));
  return { schedule_date: date, schedule_time: time };
}

/** Each family's tour; the mail sink must run (sender mails, test mails). */
export const tours: Record<string, (visit: Visit) => Promise<void>> = {
  'contact-types': async (visit) => {
    const keys = await newAccount('Tour contact types');
    const go = (call: TourCall) => visit(keys, 'contact-types', call);
    await go({ method: 'POST', path: 'contacts-type/add', body: { name: 'Customers' } });
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'contacts-type' })).contactTypes);
    await go({ method: 'GET', path: 'contacts-type/view', query: { contact_type_id: id } });
    await go({ method: 'POST', path: 'contacts-type/update', body: { id, name: 'Clients' } });
    await go({ method: 'DELETE', path: 'contacts-type/delete', query: { contact_type_id: id } });
  },

  'custom-fields': async (visit) => {
    const keys = await newAccount('Tour custom fields');
    const go = (call: TourCall) => visit(keys, 'custom-fields', call);
    await go({ method: 'GET', path: 'reserve-fields' });
    await go({ method: 'POST', path: 'custom-fields/save', body: { field_name: 'age', field_type: 'number' } });
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'custom-fields' })).customFields);
    await go({ method: 'DELETE', path: 'custom-fields/delete', query: { id } });
  },

  contacts: async (visit) => {
    const keys = await newAccount('Tour contacts');
    const go = (call: TourCall) => visit(keys, 'contacts', call);
    const typeId = (await addContactType(keys.account_id, 'Leads')).id;
    await go({ method: 'POST', path: 'contacts/add', body: contactInput(typeId, 'ada@example.com') });
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'contacts/list' })).contacts);
    await go({ method: 'GET', path: 'contacts/details', query: { contact_id: id } });
    await go({ method: 'GET', path: 'contacts/activity', query: { contact_id: id } });
    // A contact of a double opt-in type is pending: its confirmation mail may be resent.
    const sender = await addTestSender(keys.account_id, { verified: false });
    const optInTypeId = (await addContactType(keys.account_id, 'Subscribers', { double_opt_in: 1, opt_in_sender_id: sender.id })).id;
    await go({ method: 'POST', path: 'contacts/add', body: contactInput(optInTypeId, 'ada@example.com') });
    const pending = (messageOf(await go({ method: 'GET', path: 'contacts/list' })).contacts as (Listed & { contact_type_id: number })[]).find((contact) => contact.contact_type_id === optInTypeId);
    await go({ method: 'POST', path: 'contacts/resend-confirmation', body: { contact_id: itemOf([pending]).id } });
    await go({ method: 'POST', path: 'contacts/update', body: { contact_id: id, ...contactInput(typeId, 'ada@example.org') } });
    const csv = `first_name,last_name,email,country\nGrace,Hopper,grace@example.com,${place.usa}\nAlan,Turing,alan@example.com,${place.usa}\n`;
    const upload = await go({
      method: 'POST',
      path: 'contacts/upload-csv',
      form: multipart({ contact_type_id: typeId, file: { filename: 'people.csv', content: csv } }),
    });
    await go({ method: 'GET', path: 'contacts/import-status', query: { id: upload.import_id as number } });
    await go({ method: 'DELETE', path: 'contacts/delete', query: { contact_id: id } });
    const rest = messageOf(await go({ method: 'GET', path: 'contacts/list' })).contacts as Listed[];
    await go({ method: 'POST', path: 'contacts/bulk-delete', body: { strIds: rest.map((contact) => contact.id) } });
    await go({ method: 'POST', path: 'contacts/bulk-upsert', body: { contact_type_id: typeId, contacts: [{ email: 'ada@example.com', country: place.usa }, { email: 'bad' }] } });
  },

  segments: async (visit) => {
    const keys = await newAccount('Tour segments');
    const go = (call: TourCall) => visit(keys, 'segments', call);
    const typeId = (await addContactType(keys.account_id, 'Members')).id;
    const rules = { select_field: ['city'], select_operator: ['is'], value: ['Kochi'] };
    await go({ method: 'POST', path: 'segment/save', body: { contact_type_id: typeId, segment_name: 'In Kochi', ...rules } });
    await jobsSettled(keys.account_id);
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'segment/list' })).segments);
    await go({ method: 'POST', path: 'segment/update', body: { segment_id: id, contact_type_id: typeId, segment_name: 'Kochi', ...rules } });
    await jobsSettled(keys.account_id);
    await go({ method: 'POST', path: 'segment/email/store', body: { segment_id: id, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' } });
    const recipient = itemOf(messageOf(await go({ method: 'GET', path: 'segment/email/list', query: { segment_id: id } })).contactEmails);
    await go({ method: 'DELETE', path: 'segment/email/delete', query: { segment_recipient_id: recipient.id } });
    await go({ method: 'DELETE', path: 'segment/delete', query: { segment_id: id } });
  },

  'unsubscribe-groups': async (visit) => {
    const keys = await newAccount('Tour unsubscribe groups');
    const go = (call: TourCall) => visit(keys, 'unsubscribe-groups', call);
    const group = { group_name: 'Weekly', description: 'The weekly letter', is_display: 1 };
    await go({ method: 'POST', path: 'unsubscribes-groups/save', body: group });
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'unsubscribes-groups' })).unsubscribesGroups);
    await go({ method: 'GET', path: 'unsubscribes-groups/details', query: { id } });
    await go({ method: 'POST', path: 'unsubscribes-groups/update', query: { id }, body: { ...group, is_display: 0 } });
    await go({ method: 'POST', path: 'unsubscribes-groups/manually-add', body: { unsubscribe_groups_id: id, email_address: 'a@example.com, b@example.com' } });
    const recipients = messageOf(await go({ method: 'GET', path: 'unsubscribes-groups/recipients-list', query: { groupId: id } })).recipients;
    await go({ method: 'DELETE', path: 'unsubscribes-groups/recipients-delete', query: { id: itemOf(recipients, 0).id } });
    await go({ method: 'POST', path: 'unsubscribes-groups/recipients-bulk-delete', body: { strIds: [itemOf(recipients, 1).id] } });
  },

  'global-unsubscribes': async (visit) => {
    const keys = await newAccount('Tour global unsubscribes');
    const go = (call: TourCall) => visit(keys, 'global-unsubscribes', call);
    await go({ method: 'POST', path: 'global-unsubscribes/save', body: { email_address: 'gone@example.com, left@example.org' } });
    const entries = messageOf(await go({ method: 'GET', path: 'global-unsubscribes' })).unSubscribers;
    await go({ method: 'DELETE', path: 'global-unsubscribes/delete', query: { id: itemOf(entries, 0).id } });
    await go({ method: 'POST', path: 'global-unsubscribes/bulk-delete', body: { strIds: [itemOf(entries, 1).id] } });
  },

  suppressions: async (visit) => {
    const keys = await newAccount('Tour suppressions');
    await addBouncedAddress(keys.account_id, 'bounced@example.com', 'bounce', 'smtp; 550 no such user');
    await visit(keys, 'suppressions', { method: 'GET', path: 'suppressions' });
    await visit(keys, 'suppressions', { method: 'DELETE', path: 'suppressions/delete', query: { email: 'bounced@example.com' } });
  },

  jobs: async (visit) => {
    const keys = await newAccount('Tour jobs');
    // Saving a segment starts its rebuild job.
    const typeId = (await addContactType(keys.account_id, 'Members')).id;
    const segment = { contact_type_id: typeId, segment_name: 'Everyone here', select_field: ['city'], select_operator: ['is'], value: ['Kochi'] };
    await visit(keys, 'segments', { method: 'POST', path: 'segment/save', body: segment });
    await jobsSettled(keys.account_id);
    const { id } = itemOf(messageOf(await visit(keys, 'jobs', { method: 'GET', path: 'jobs' })).jobs);
    await visit(keys, 'jobs', { method: 'GET', path: 'jobs/details', query: { id } });
    // A bulk upsert's job shows its counts and refused contacts too.
    await visit(keys, 'contacts', { method: 'POST', path: 'contacts/bulk-upsert', body: { contact_type_id: typeId, contacts: [{ email: 'ada@example.com', country: place.usa }, { email: 'bad' }] } });
    await jobsSettled(keys.account_id);
    const upsert = itemOf(messageOf(await visit(keys, 'jobs', { method: 'GET', path: 'jobs' })).jobs);
    await visit(keys, 'jobs', { method: 'GET', path: 'jobs/details', query: { id: upsert.id } });
  },

  'notification-recipients': async (visit) => {
    const keys = await newAccount('Tour notification recipients');
    const go = (call: TourCall) => visit(keys, 'notification-recipients', call);
    await go({ method: 'POST', path: 'notification-recipient/save', body: { email_address: 'ops@example.com', email_owner: 'Ops' } });
    await go({ method: 'POST', path: 'notification-recipient/save', body: { email_address: 'dev@example.com', email_owner: 'Dev' } });
    const list = messageOf(await go({ method: 'GET', path: 'notification-recipients' })).notifications;
    await go({ method: 'DELETE', path: 'notification-recipient/delete', query: { id: itemOf(list, 0).id } });
    await go({ method: 'POST', path: 'notification-recipient/bulk-delete', body: { strIds: [itemOf(list, 1).id] } });
  },

  webhooks: async (visit) => {
    const keys = await newAccount('Tour webhooks');
    const go = (call: TourCall) => visit(keys, 'webhooks', call);
    const saved = messageOf(await go({ method: 'POST', path: 'webhooks/save', body: { url: 'https://hooks.example.com/mail', events: ['delivered', 'bounce'] } }));
    await go({ method: 'GET', path: 'webhooks' });
    await go({ method: 'DELETE', path: 'webhooks/delete', query: { id: saved.id as number } });
  },

  templates: async (visit) => {
    const keys = await newAccount('Tour templates');
    await visit(keys, 'templates', { method: 'GET', path: 'get-design/template' });
    await visit(keys, 'templates', { method: 'GET', path: 'get-dynamic/content' });
  },

  'reference-data': async (visit) => {
    const keys = await newAccount('Tour reference data');
    await visit(keys, 'reference-data', { method: 'GET', path: 'get/country-state-city' });
    await visit(keys, 'reference-data', { method: 'GET', path: 'get/country-state-city', query: { country_id: place.usa, state_id: place.california } });
  },

  senders: async (visit) => {
    const keys = await newAccount('Tour senders');
    const go = (call: TourCall) => visit(keys, 'senders', call);
    await go({ method: 'POST', path: 'sender/save', body: senderInput() });
    await go({ method: 'POST', path: 'senders' });
    const { id } = itemOf(messageOf(await go({ method: 'GET', path: 'senders' })).senders);
    await go({ method: 'GET', path: 'sender/details', query: { sender_id: id } });
    await go({ method: 'POST', path: 'sender/update', body: { sender_id: id, ...senderInput({ nickname: 'Letters' }) } });
    // A resend waits a minute after the last mail: one the API has not mailed yet.
    const unmailed = await addTestSender(keys.account_id, { verified: false });
    await go({ method: 'GET', path: 'sender/resend-mail', query: { sender_id: unmailed.id } });
    await go({ method: 'DELETE', path: 'sender/delete', query: { sender_id: id } });
  },

  'sender-domains': async (visit) => {
    const keys = await newAccount('Tour sender domains');
    const go = (call: TourCall) => visit(keys, 'sender-domains', call);
    // The local identities are shared by every account of the table: a domain no other test uses.
    const domain = `mail.d${randomBytes(5).toString('hex')}.example.com`;
    await go({ method: 'POST', path: 'sender-domains/save', body: { domain } });
    await go({ method: 'GET', path: 'sender-domains' });
    await go({ method: 'GET', path: 'sender-domains/details', query: { domain } });
    await go({ method: 'DELETE', path: 'sender-domains/delete', query: { domain } });
  },

  'single-sends': async (visit) => {
    const account = await newSendingAccount('Tour single sends');
    const { keys } = account;
    const go = (call: TourCall) => visit(keys, 'single-sends', call);
    const fields = {
      template_id: 2,
      sender_id: account.sender.id,
      unsubscribe_group_id: account.groupId,
      single_send_name: 'Spring news',
      subject: 'Hello ((first_name))',
      preheader: 'What is new this spring',
      recipient_id: [`contacts_${account.contactTypeId}`],
      exclude_specific_recipient_id: [`segments_${account.segmentId}`],
      schedule_type: 1,
      ...nextWeek(),
    };
    const utr = messageOf(await go({ method: 'POST', path: 'single/send/create', body: fields })).utr as string;
    await go({ method: 'GET', path: 'single-send/list' });
    await go({ method: 'GET', path: 'single-send/details', query: { utr } });
    await go({ method: 'GET', path: 'single-send/stats', query: { utr } });
    await go({ method: 'POST', path: 'single/send/update', body: { utr, ...fields, subject: 'Hi ((first_name))' } });
    await visit(keys, 'test-mails', { method: 'GET', path: 'single-send/preview', query: { utr } });
    await visit(keys, 'test-mails', { method: 'POST', path: 'single/send/test', body: { utr, emails: ['tester@example.com'] } });
    // A resend needs a completed send; dispatching one is not this tour's business, so its state says completed.
    const done = messageOf(await go({ method: 'POST', path: 'single/send/create', body: fields })).utr as string;
    await updateExistingItem(singleSendStateKey(keys.account_id, done), { status: singleSendStatus.completed });
    const resent = messageOf(await go({ method: 'POST', path: 'single/send/resend', body: { utr: done, audience: 'non_openers', schedule_type: 1, ...nextWeek() } })).utr as string;
    await go({ method: 'GET', path: 'single-send/details', query: { utr: resent } });
    await go({ method: 'GET', path: 'single/send/duplicate', query: { utr } });
    await go({ method: 'POST', path: 'single/send/duplicate', query: { utr } });
    await go({ method: 'DELETE', path: 'single/send/delete', query: { utr } });
    const rest = messageOf(await go({ method: 'GET', path: 'single-send/list' })).singleSends as Listed[];
    await go({ method: 'POST', path: 'single/send/bulk-delete', body: { strIds: rest.map((send) => send.utr) } });
  },

  automations: async (visit) => {
    const account = await newSendingAccount('Tour automations');
    const { keys } = account;
    const go = (call: TourCall) => visit(keys, 'automations', call);
    // A contact type with no contacts: setting the automation live enrols nobody.
    const emptyTypeId = (await addContactType(keys.account_id, 'Nobody yet')).id;
    const automation = { type: 'welcome', automation_for: `contacts_${emptyTypeId}`, automation_name: 'Welcome series', unsubscribe_group_id: account.groupId };
    const utr = messageOf(await go({ method: 'POST', path: 'automations/create', body: automation })).utr as string;
    await go({ method: 'GET', path: 'automations' });
    await go({ method: 'GET', path: 'automations/details', query: { utr } });
    await go({ method: 'GET', path: 'automations/stats', query: { utr } });
    const step = { utr, sender_id: account.sender.id, subject: 'Welcome aboard', waiting_period: 1, waiting_type: 'days', template_id: 2, preview_img: 'newsletter.svg' };
    await go({ method: 'POST', path: 'automations/schedule/create', body: step });
    const schedule = itemOf(messageOf(await go({ method: 'GET', path: 'automations/schedule', query: { utr } })).automation_schedules);
    await visit(keys, 'test-mails', { method: 'POST', path: 'automations/schedule/test', body: { schedule_id: schedule.utr, emails: ['tester@example.com'] } });
    await go({ method: 'GET', path: 'automations/set-live', query: { utr } });
    await jobsSettled(keys.account_id);
    await go({ method: 'GET', path: 'automations/pause', query: { utr } });
    await go({ method: 'DELETE', path: 'automations/schedule/delete', query: { utr: schedule.utr } });
    const copy = messageOf(await go({ method: 'GET', path: 'automations/duplicate', query: { utr } })).utr as string;
    await go({ method: 'DELETE', path: 'automations/delete', query: { utr } });
    await go({ method: 'POST', path: 'automations/bulk-delete', body: { strIds: [copy] } });
  },
};
