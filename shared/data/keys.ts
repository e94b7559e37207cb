// Every table key is built here and nowhere else. Account data lives in partitions that start with
// the account id (`A#<id>#<entity>`), so one account's records can never be read through another's key.

export interface Key {
  pk: string;
  sk: string;
}

/** Ids sort as text in DynamoDB; zero-padding keeps them in numeric order. */
export function idSortKey(id: number): string {
  return String(id).padStart(12, '0');
}

/** The partition holding one kind of record of one account. */
export function entityPartition(accountId: number, entity: string): string {
  return `A#${accountId}#${entity}`;
}

/** The item of one record of one kind, by its integer id. */
export function entityKey(accountId: number, entity: string, id: number): Key {
  return { pk: entityPartition(accountId, entity), sk: idSortKey(id) };
}

// Accounts and credentials

/** The account profile. */
export function accountKey(accountId: number): Key {
  return { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' };
}

/** A public key's own item: resolves to its account and the secret's hash in one GetItem. */
export function credentialKey(publicKey: string): Key {
  return { pk: `CREDENTIAL#${publicKey}`, sk: 'CREDENTIAL' };
}

/** The counter that hands out account ids. */
export function accountIdCounterKey(): Key {
  return { pk: 'GLOBAL', sk: 'COUNTER#account' };
}

/** The counter that hands out ids of one kind of record within one account. */
export function idCounterKey(accountId: number, entity: string): Key {
  return { pk: `A#${accountId}`, sk: `COUNTER#${entity}` };
}

// Contact types

export const CONTACT_TYPE = 'contact-type';

export function contactTypeKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_TYPE, id);
}

export function contactTypePartition(accountId: number): string {
  return entityPartition(accountId, CONTACT_TYPE);
}

// Scheduled jobs (the local scheduler adapter; EventBridge Scheduler keeps them when deployed)

/** The gsi1 partition that holds every pending local schedule, so due jobs come from one Query. */
export const SCHEDULE_PARTITION = 'SCHEDULE';

/** A local schedule's own item, by its name (names are unique, as in EventBridge Scheduler). */
export function scheduledJobKey(name: string): Key {
  return { pk: `SCHEDULE#${name}`, sk: 'SCHEDULE' };
}

/** The gsi1 keys that order pending schedules by due time: `<ISO due time>#<name>`. */
export function scheduledJobDueKey(dueAt: Date, name: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: SCHEDULE_PARTITION, gsi1sk: `${dueAt.toISOString()}#${name}` };
}

/** Exclusive gsi1sk bound for schedules due at or before `now`: '$' sorts right after the '#' separator. */
export function scheduledJobsDueBound(now: Date): string {
  return `${now.toISOString()}$`;
}

// Contacts

export const CONTACT = 'contact';

/** A contact's own item, by id; the account's contact partition lists them in id order. */
export function contactKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT, id);
}

export function contactPartition(accountId: number): string {
  return entityPartition(accountId, CONTACT);
}

/** The gsi1 partition of one contact type's contacts (reads by type and the contact-type cascade). */
export function contactsOfTypePartition(accountId: number, contactTypeId: number): string {
  return entityPartition(accountId, `${CONTACT_TYPE}#${contactTypeId}#${CONTACT}`);
}

/** The gsi1 attributes that place a contact in its type's partition, in id order. */
export function contactOfTypeIndexKey(accountId: number, contactTypeId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: contactsOfTypePartition(accountId, contactTypeId), gsi1sk: idSortKey(id) };
}

/** The item that claims an email within a contact type (case-insensitive), so two contacts never share it. */
export function contactEmailKey(accountId: number, contactTypeId: number, email: string): Key {
  return { pk: entityPartition(accountId, `contact-email#${contactTypeId}`), sk: email.toLowerCase() };
}

// Custom fields

export const CUSTOM_FIELD = 'custom-field';

export function customFieldKey(accountId: number, id: number): Key {
  return entityKey(accountId, CUSTOM_FIELD, id);
}

export function customFieldPartition(accountId: number): string {
  return entityPartition(accountId, CUSTOM_FIELD);
}

/** The item that claims a custom field name in an account (case-insensitive). */
export function customFieldNameKey(accountId: number, fieldName: string): Key {
  return { pk: entityPartition(accountId, 'custom-field-name'), sk: fieldName.toLowerCase() };
}

// Global unsubscribes and unsubscribe groups (suppression lists)

export const GLOBAL_UNSUBSCRIBE = 'global-unsubscribe';
export const UNSUBSCRIBE_GROUP = 'unsubscribe-group';
export const UNSUBSCRIBE_GROUP_RECIPIENT = 'unsubscribe-group-recipient';

export function globalUnsubscribeKey(accountId: number, id: number): Key {
  return entityKey(accountId, GLOBAL_UNSUBSCRIBE, id);
}

export function globalUnsubscribePartition(accountId: number): string {
  return entityPartition(accountId, GLOBAL_UNSUBSCRIBE);
}

/** The item that holds an address on the account's global list (case-insensitive): one GetItem answers "suppressed?". */
export function globalUnsubscribeAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'global-unsubscribe-address'), sk: email.toLowerCase() };
}

export function unsubscribeGroupKey(accountId: number, id: number): Key {
  return entityKey(accountId, UNSUBSCRIBE_GROUP, id);
}

export function unsubscribeGroupPartition(accountId: number): string {
  return entityPartition(accountId, UNSUBSCRIBE_GROUP);
}

/** A group recipient by its id (ids are per account, across groups, as the spec's delete by id needs). */
export function unsubscribeGroupRecipientKey(accountId: number, id: number): Key {
  return entityKey(accountId, UNSUBSCRIBE_GROUP_RECIPIENT, id);
}

/** The partition of one group's addresses: its recipient list is one Query. */
export function unsubscribeGroupAddressPartition(accountId: number, groupId: number): string {
  return entityPartition(accountId, `unsubscribe-group-address#${groupId}`);
}

/** The item that holds an address in one group (case-insensitive): one GetItem answers "in the group?". */
export function unsubscribeGroupAddressKey(accountId: number, groupId: number, email: string): Key {
  return { pk: unsubscribeGroupAddressPartition(accountId, groupId), sk: email.toLowerCase() };
}

// Notification recipients

export const NOTIFICATION_RECIPIENT = 'notification-recipient';

export function notificationRecipientKey(accountId: number, id: number): Key {
  return entityKey(accountId, NOTIFICATION_RECIPIENT, id);
}

export function notificationRecipientPartition(accountId: number): string {
  return entityPartition(accountId, NOTIFICATION_RECIPIENT);
}

/** The item that claims an address among the account's notification recipients (case-insensitive). */
export function notificationRecipientAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'notification-recipient-address'), sk: email.toLowerCase() };
}

// Senders

export const SENDER = 'sender';

export function senderKey(accountId: number, id: number): Key {
  return entityKey(accountId, SENDER, id);
}

export function senderPartition(accountId: number): string {
  return entityPartition(accountId, SENDER);
}

// Segments

export const SEGMENT = 'segment';
export const SEGMENT_RECIPIENT = 'segment-recipient';

export function segmentKey(accountId: number, id: number): Key {
  return entityKey(accountId, SEGMENT, id);
}

export function segmentPartition(accountId: number): string {
  return entityPartition(accountId, SEGMENT);
}

/** The gsi1 partition listing the segments of one contact type, so a contact change reads them in one Query. */
export function segmentsOfContactTypePartition(accountId: number, contactTypeId: number): string {
  return `${entityPartition(accountId, SEGMENT)}#contact-type#${contactTypeId}`;
}

/** The gsi1 keys a segment carries to appear in its contact type's partition. */
export function segmentContactTypeIndexKey(accountId: number, contactTypeId: number, segmentId: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: segmentsOfContactTypePartition(accountId, contactTypeId), gsi1sk: idSortKey(segmentId) };
}

/** The partition holding one segment's recipients. */
export function segmentRecipientPartition(accountId: number, segmentId: number): string {
  return `${entityPartition(accountId, SEGMENT_RECIPIENT)}#${segmentId}`;
}

/** A segment's recipient item, keyed by lower-cased address: the key itself keeps each address once per segment. */
export function segmentRecipientKey(accountId: number, segmentId: number, email: string): Key {
  return { pk: segmentRecipientPartition(accountId, segmentId), sk: email.toLowerCase() };
}

/** The gsi1 keys that find a recipient by its id alone (segment/email/delete names only the id); one gsi1 partition per id. */
export function segmentRecipientIdIndexKey(accountId: number, recipientId: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `${entityPartition(accountId, SEGMENT_RECIPIENT)}#id#${recipientId}`, gsi1sk: idSortKey(recipientId) };
}

// Reference data (countries, states, cities): global, not account data, so no account id

/** The seeded version marker: written last, so its presence means every item below is complete. */
export function referenceVersionKey(): Key {
  return { pk: 'REFERENCE', sk: 'VERSION' };
}

/** Every country and state in one item, so the country-state-city list costs one GetItem. */
export function referenceRegionsKey(): Key {
  return { pk: 'REFERENCE', sk: 'COUNTRIES_AND_STATES' };
}

/** One country's cities; a partition per country spreads the reads. */
export function referenceCitiesKey(countryId: number): Key {
  return { pk: `REFERENCE#CITIES#${idSortKey(countryId)}`, sk: 'CITIES' };
}

// Single sends

export const SINGLE_SEND = 'single-send';

/** A single send's own item, by its utr: every single-send operation names the send by utr. */
export function singleSendKey(accountId: number, utr: string): Key {
  return { pk: singleSendPartition(accountId), sk: utr };
}

/** The partition holding an account's single-send items only (keyed by utr; the list reads the id index). */
export function singleSendPartition(accountId: number): string {
  return entityPartition(accountId, SINGLE_SEND);
}

/** The gsi1 keys that order an account's single sends by id and find one by its integer id (bulk delete). */
export function singleSendIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: singleSendIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}

/** The gsi1 partition listing an account's single sends in id order. */
export function singleSendIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${SINGLE_SEND}-by-id`);
}

// Sending (the delivery ledger, event markers, bounce suppressions, dispatch state)

/**
 * The partition of one recipient of one send or automation step (`ref` is an encoded SendRef, the
 * address lower-cased): the ledger claim and the statistics markers live together, and one
 * partition per recipient spreads a large send's writes.
 */
export function sendRecipientPartition(accountId: number, ref: string, email: string): string {
  return entityPartition(accountId, `send-recipient#${ref}#${email.toLowerCase()}`);
}

/** The ledger item claimed before a recipient is mailed: its existence means "mailed, or being mailed". */
export function sendLedgerKey(accountId: number, ref: string, email: string): Key {
  return { pk: sendRecipientPartition(accountId, ref, email), sk: 'LEDGER' };
}

/** A marker that one statistics event (delivered, a unique open, ...) was counted for this recipient. */
export function sendEventMarkerKey(accountId: number, ref: string, email: string, event: string): Key {
  return { pk: sendRecipientPartition(accountId, ref, email), sk: `EVENT#${event}` };
}

/** Addresses that hard-bounced or complained, by lower-cased address: one GetItem answers "suppressed?". */
export function bouncedAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'bounced-address'), sk: email.toLowerCase() };
}

export function bouncedAddressPartition(accountId: number): string {
  return entityPartition(accountId, 'bounced-address');
}

/** A single send's dispatch progress (cursor, fan-out and settlement counts), apart from the API record. */
export function singleSendDispatchKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-dispatch'), sk: utr };
}

/** Marks one delivery batch of a send as settled, so a redelivered batch is never counted twice. */
export function deliveryBatchKey(accountId: number, ref: string, batchId: string): Key {
  return { pk: entityPartition(accountId, `delivery-batch#${ref}`), sk: batchId };
}

// Automations

export const AUTOMATION = 'automation';
export const AUTOMATION_STEP = 'automation-step';

/** The partition holding an account's automations (the list Queries it and orders by id). */
export function automationPartition(accountId: number): string {
  return entityPartition(accountId, AUTOMATION);
}

/** An automation's own item, by its utr: every automation operation names the automation by utr. */
export function automationKey(accountId: number, utr: string): Key {
  return { pk: automationPartition(accountId), sk: utr };
}

/** The partition of one automation's steps (the spec's schedules), in step order: ids grow as steps are added. */
export function automationStepPartition(accountId: number, automationUtr: string): string {
  return entityPartition(accountId, `${AUTOMATION_STEP}#${automationUtr}`);
}

export function automationStepKey(accountId: number, automationUtr: string, stepId: number): Key {
  return { pk: automationStepPartition(accountId, automationUtr), sk: idSortKey(stepId) };
}

/** The item that finds a step by its utr alone (schedule delete and the design links name only the step). */
export function automationStepUtrKey(accountId: number, stepUtr: string): Key {
  return { pk: entityPartition(accountId, `${AUTOMATION_STEP}-utr`), sk: stepUtr };
}

// Paged lists and contact import jobs

/** The gsi1 partition listing an account's automations in id order (their items are keyed by utr). */
export function automationIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${AUTOMATION}-by-id`);
}

/** The gsi1 keys an automation carries to appear in its account's id-ordered list. */
export function automationIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: automationIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}

export const CONTACT_IMPORT = 'contact-import';

/** A CSV import job's own item: its state, counts and checkpoint. */
export function contactImportKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_IMPORT, id);
}

/** The partition of one import job's stored file, in pieces numbered from 0. */
export function contactImportFilePartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-file#${importId}`);
}

export function contactImportFileKey(accountId: number, importId: number, piece: number): Key {
  return { pk: contactImportFilePartition(accountId, importId), sk: idSortKey(piece) };
}

/** The partition of one import job's row errors, one item per chunk, by the chunk's first row. */
export function contactImportErrorsPartition(accountId: number, importId: number): string {
  return entityPartition(accountId, `${CONTACT_IMPORT}-errors#${importId}`);
}

export function contactImportErrorsKey(accountId: number, importId: number, firstRow: number): Key {
  return { pk: contactImportErrorsPartition(accountId, importId), sk: idSortKey(firstRow) };
}

/** The gsi1 partition listing one unsubscribe group's recipients in id order (their address items are keyed by address). */
export function unsubscribeGroupRecipientIdIndexPartition(accountId: number, groupId: number): string {
  return entityPartition(accountId, `${UNSUBSCRIBE_GROUP_RECIPIENT}-by-id#${groupId}`);
}

/** The gsi1 keys a group recipient's record carries to appear in its group's id-ordered list. */
export function unsubscribeGroupRecipientIdIndexKey(accountId: number, groupId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: unsubscribeGroupRecipientIdIndexPartition(accountId, groupId), gsi1sk: idSortKey(id) };
}

// Automation enrolments

export const AUTOMATION_ENROLMENT = 'automation-enrolment';

/** The partition of one automation's enrolments (resume, delete and tests read it), one item per contact. */
export function automationEnrolmentPartition(accountId: number, automationUtr: string): string {
  return entityPartition(accountId, `${AUTOMATION_ENROLMENT}#${automationUtr}`);
}

/** A contact's enrolment in an automation: the key itself keeps a contact enrolled at most once. */
export function automationEnrolmentKey(accountId: number, automationUtr: string, contactId: number): Key {
  return { pk: automationEnrolmentPartition(accountId, automationUtr), sk: idSortKey(contactId) };
}

/**
 * The gsi1 partition of enrolments due within one UTC hour (`yyyy-mm-ddThh`), split into shards. It is
 * global (not per account): the step runner drains every account's due enrolments from it.
 */
export function automationDuePartition(hour: string, shard: number): string {
  return `AUTOMATION-DUE#${hour}#${shard}`;
}

/** The gsi1 sort key of a due enrolment: its due time first, so one Query reads what is due by now. */
export function automationDueSortKey(dueAt: Date, accountId: number, automationUtr: string, contactId: number): string {
  return `${dueAt.toISOString()}#${accountId}#${automationUtr}#${idSortKey(contactId)}`;
}

/** Exclusive gsi1sk bound for enrolments due at or before `now`: '$' sorts right after the '#' separator. */
export function automationDueBound(now: Date): string {
  return `${now.toISOString()}$`;
}

/** The step runner's own state: the last hour it drained completely. */
export function automationRunnerStateKey(): Key {
  return { pk: 'AUTOMATION-RUNNER', sk: 'STATE' };
}
