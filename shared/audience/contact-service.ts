// The contact use cases: each writes through the contacts repository and then brings along what
// depends on contacts: segment membership, and enrolment in the live automations of the contact's
// type and of the segments it started to match.
import { onContactsJoined, onSegmentsJoined } from '../automation-runs/enrolment-service';
import type { CustomField } from '../custom-fields/repository';
import { segmentDepartures } from '../segments/departures';
import { syncContactSegments, syncContactSegmentsBatch, type SegmentJoin } from '../segments/membership';
import type { Subscription } from '../contacts/items';
import { expectOptInMails, mailOptInsSoon } from './opt-in-schedule';
import { importContacts, type ImportCounts, type ImportOptions } from './import-writes';
import type { ImportRow } from './import-lookup';
import type { ContactRecord } from '../contacts/record';
import { insertContact, removeContacts, removeContactsOfType, replaceContact, type ContactFields, type CustomValues } from '../contacts/repository';
import { deleteActivityOf } from '../contacts/activity';

const pendingSubscription: Subscription = { subscription_status: 'pending', confirmed_at: null };

/** The segment joins of confirmed contacts only: a pending contact is enrolled once it confirms (opt-in-confirm.ts). */
function confirmedJoins(joins: SegmentJoin[], contacts: readonly ContactRecord[]): SegmentJoin[] {
  const pending = new Set(contacts.filter((contact) => contact.subscription_status === 'pending').map((contact) => contact.id));
  if (pending.size === 0) return joins;
  return joins.map((join) => ({ ...join, joined: join.joined.filter((joiner) => !pending.has(joiner.contactId)) }));
}

/**
 * Add a contact; it joins its type's segments and automations. In a type with double opt-in it is
 * pending: owed a confirmation mail (the account's mailer is booked), and enrolled only once it confirms.
 */
export async function addContact(
  accountId: number,
  input: ContactFields,
  customValues: CustomValues,
  knownFields?: Map<string, CustomField>,
  options: { doubleOptIn?: boolean } = {},
): Promise<ContactRecord> {
  if (options.doubleOptIn) await expectOptInMails(accountId);
  const record = await insertContact(accountId, input, customValues, knownFields, options.doubleOptIn ? pendingSubscription : undefined);
  const pending = record.subscription_status === 'pending';
  // Independent reads and writes (the type's segments, its live automations): one round trip of latency.
  const [joins] = await Promise.all([
    syncContactSegments(accountId, undefined, record),
    pending ? mailOptInsSoon(accountId) : onContactsJoined(accountId, record.contact_type_id, [record]),
  ]);
  await onSegmentsJoined(accountId, confirmedJoins(joins, [record]));
  return record;
}

/** Replace a contact's fields; a contact moved into another type joins it as an added one does. */
export async function updateContact(
  accountId: number,
  id: number,
  input: ContactFields,
  customValues: CustomValues,
  knownFields?: Map<string, CustomField>,
): Promise<ContactRecord> {
  const { before, after } = await replaceContact(accountId, id, input, customValues, knownFields);
  const movesType = before.contact_type_id !== after.contact_type_id;
  const [joins] = await Promise.all([syncContactSegments(accountId, before, after), movesType ? onContactsJoined(accountId, after.contact_type_id, [after]) : undefined]);
  await onSegmentsJoined(accountId, joins);
  return after;
}

/** Delete one contact; it leaves its segments in the same transaction. */
export async function deleteContact(accountId: number, id: number): Promise<void> {
  await deleteContacts(accountId, [id]);
}

/**
 * Delete every listed contact or none; each leaves its segments in the transaction that deletes it,
 * and its activity (its address's) is deleted after it.
 */
export async function deleteContacts(accountId: number, ids: number[]): Promise<void> {
  const deleted = await removeContacts(accountId, ids, (contacts) => segmentDepartures(accountId, contacts));
  await deleteActivityOf(accountId, deleted.map((contact) => contact.email));
}

/**
 * Delete the contacts of a (closing) type, page by page, each page leaving its segments and reported
 * to `onPage`, while `keepGoing` says there is time; `done` once the type has no contact left.
 */
export function deleteContactsOfType(
  accountId: number,
  contactTypeId: number,
  onPage: (removed: number) => Promise<void> = async () => {},
  keepGoing?: () => boolean,
): Promise<{ removed: number; done: boolean }> {
  return removeContactsOfType(
    accountId,
    contactTypeId,
    async (contacts) => {
      await syncContactSegmentsBatch(accountId, contacts.map((before) => ({ before })));
      await deleteActivityOf(accountId, contacts.map((contact) => contact.email));
      await onPage(contacts.length);
    },
    keepGoing,
  );
}

/** Import rows into a type (one chunk of a CSV import): the written contacts join segments and automations. */
export async function importContactRows(
  accountId: number,
  contactTypeId: number,
  rows: ImportRow[],
  columns: ReadonlySet<string>,
  options: ImportOptions = {},
): Promise<ImportCounts> {
  const result = await importContacts(accountId, contactTypeId, rows, columns, options);
  const confirmed = result.created.filter((contact) => contact.subscription_status === 'confirmed');
  const owed = confirmed.length < result.created.length;
  // Independent, as for one added contact: the type's segments, its live automations, the mailer.
  const [joins] = await Promise.all([
    syncContactSegmentsBatch(accountId, result.changes),
    onContactsJoined(accountId, contactTypeId, confirmed),
    owed ? mailOptInsSoon(accountId) : undefined,
  ]);
  await onSegmentsJoined(accountId, confirmedJoins(joins, result.created));
  return { imported: result.imported, updated: result.updated, refused: result.refused };
}
