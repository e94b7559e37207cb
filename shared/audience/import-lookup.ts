// Looking up an import's rows before they are written: the type's contacts holding their emails,
// the account's custom fields, whether the type is open, and ids reserved for the new contacts.
import { batchGetAll } from '../table/batch';
import { fieldsByName, toContactRecord, type ContactFields, type CustomValues } from '../contacts/items';
import type { ContactRecord } from '../contacts/record';
import { contactTypeClosingAttribute, contactTypeKey } from '../contact-types/keys';
import { optInOf } from '../contact-types/repository';
import { listCustomFields } from '../custom-fields/repository';
import { reserveIds } from '../table/ids';
import { CONTACT, contactEmailKey, contactKey } from '../contacts/keys';
import type { Key } from '../table/keys';
import { getItem, type Item } from '../table/records';

/** One valid row: its line in the file (a JSON upsert's: its index), its fields and custom values. */
export interface ImportRow {
  line: number;
  fields: ContactFields;
  customValues: CustomValues;
  /**
   * The standard fields this row gives, when it says for itself (a JSON contact, unlike a file's row
   * whose columns are the file's): they replace the file's columns on update, and a row that leaves
   * out `country` only updates, as a new contact needs one.
   */
  given?: ReadonlySet<string>;
}

/** Requests in flight at once: fast, without tripping on-demand throttling of a cold table. */
export const concurrency = 16;

/**
 * What an import reads before it writes rows: the custom fields, the contacts that already hold the
 * rows' emails, and whether the type is open. Made by `lookUpImport`; an import job makes its next
 * chunk's while the current chunk writes, so the store is not idle while it reads.
 */
export interface ImportLookup {
  /** The rows looked up (the same array the write is given). */
  rows: ImportRow[];
  fields: ReturnType<typeof fieldsByName>;
  /** The type's contacts holding the rows' emails, by lower-cased email. */
  existing: Map<string, ContactRecord>;
  /** Whether the type existed and was not closing when looked up (the write checks again after). */
  open: boolean;
  /** Whether the type asks new contacts for double opt-in: they are created pending, owed a confirmation mail. */
  doubleOptIn: boolean;
  /** The first of the ids reserved for the rows not in `existing` (0 when none). */
  firstId: number;
}

/** Whether a row the type does not hold may create a contact: a new contact needs a country. */
export function canCreate(row: ImportRow): boolean {
  return !row.given || row.given.has('country');
}

/** Items at many keys (missing ones are absent), strongly consistent. */
function getMany(keys: Key[]): Promise<Item[]> {
  return batchGetAll(keys, { consistentRead: true, concurrency });
}

/** The email claims of these emails in the type (missing ones are absent). */
function claimsOf(accountId: number, contactTypeId: number, emails: string[]): Promise<Item[]> {
  return getMany(emails.map((email) => contactEmailKey(accountId, contactTypeId, email)));
}

/** The lower-cased emails among these that the type holds (their claims exist). */
export async function heldEmails(accountId: number, contactTypeId: number, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  return new Set((await claimsOf(accountId, contactTypeId, emails)).map((claim) => String(claim.sk)));
}

/** The contacts that already hold these emails in the type, by lower-cased email (`claims`: their claims, when already read). */
export async function existingByEmail(accountId: number, contactTypeId: number, emails: string[], fields: ReturnType<typeof fieldsByName>, claims?: Item[]): Promise<Map<string, ContactRecord>> {
  claims ??= await claimsOf(accountId, contactTypeId, emails);
  const contacts = await getMany(claims.map((claim) => contactKey(accountId, Number(claim.contact_id))));
  const byEmail = new Map<string, ContactRecord>();
  for (const item of contacts) {
    const contact = toContactRecord(item, fields);
    if (contact.contact_type_id === contactTypeId) byEmail.set(contact.email.toLowerCase(), contact);
  }
  return byEmail;
}

/** Whether contacts may join the type (it exists and is not being deleted), and whether it asks them for double opt-in. */
async function typeState(accountId: number, contactTypeId: number): Promise<{ open: boolean; doubleOptIn: boolean }> {
  const type = await getItem(contactTypeKey(accountId, contactTypeId));
  return { open: type !== undefined && type[contactTypeClosingAttribute] === undefined, doubleOptIn: type !== undefined && optInOf(type).double_opt_in === 1 };
}

/** Whether contacts may join the type: it exists and is not being deleted. */
export async function typeIsOpen(accountId: number, contactTypeId: number): Promise<boolean> {
  return (await typeState(accountId, contactTypeId)).open;
}

/** Look up rows before they are written: the type's contacts holding their emails, the custom fields, and ids for the new ones. */
export async function lookUpImport(accountId: number, contactTypeId: number, rows: ImportRow[], knownFields?: ReturnType<typeof fieldsByName>): Promise<ImportLookup> {
  // Independent reads, one round trip of latency: the custom fields (unless the caller read them:
  // an import job reads its rows and writes them with the same), the email claims, and the type
  // (checked before and after the writes, not inside each transaction, where every group would
  // contend for the type's item: contacts written while the type began closing are removed again).
  const [claims, fields, { open, doubleOptIn }] = await Promise.all([
    claimsOf(accountId, contactTypeId, rows.map((row) => row.fields.email)),
    knownFields ?? listCustomFields(accountId).then((customFields) => fieldsByName(customFields)),
    typeState(accountId, contactTypeId),
  ]);
  const existing = await existingByEmail(accountId, contactTypeId, [], fields, claims);
  const freshCount = rows.filter((row) => !existing.has(row.fields.email.toLowerCase()) && canCreate(row)).length;
  // Reserved with the lookup: a lookup not used, or a type found closing, only leaves a gap in the ids.
  const firstId = open && freshCount > 0 ? await reserveIds(accountId, CONTACT, freshCount) : 0;
  return { rows, fields, existing, open, doubleOptIn, firstId };
}

/** The lower-cased emails of a lookup's rows that the type does not hold: the rows the import will try to create. */
export function freshEmails(lookup: ImportLookup): string[] {
  return lookup.rows.filter((row) => !lookup.existing.has(row.fields.email.toLowerCase()) && canCreate(row)).map((row) => row.fields.email.toLowerCase());
}
