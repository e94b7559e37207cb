// Who a single send reaches, read page by page so a dispatcher can stop and resume: the contacts of
// each `contacts_<id>` entry and the recipients of each `segments_<id>` entry, with the placeholder
// values of each, and the addresses its exclusion entries name.
import { contactsOfTypePage, forEachContactOfType } from '../contacts/repository';
import type { ContactRecord } from '../contacts/record';
import { contactFields } from '../contacts/merge-fields';
import { findCountry } from '../reference-data/repository';
import { forEachSegmentRecipient, segmentRecipientsAfter, type SegmentRecipient } from '../segments/recipients';
import type { RecipientEntry, ResendAudience, SingleSend } from '../single-sends/record';
import type { DeliveryRecipient } from '../delivery/delivery-message';
import { nextAudiencePart } from '../single-sends/audience-pages';
import { getContacts } from '../contacts/repository';
import { eventMarkerKey, ledgerEntriesAmong, legacyMarkerKey } from '../ledger/repository';
import type { SendRef } from '../ledger/send-ref';
import { batchGetAll } from '../table/batch';
import { getSegmentRules } from '../segments/repository';
import { typeMayHoldPending } from '../contact-types/repository';

/** One page of an audience entry, and the key to resume after it. */
export interface AudiencePage {
  recipients: DeliveryRecipient[];
  /** The last contact id (contact types) or lower-cased address (segments) in the page. */
  last: number | string;
}

/** A resend's one audience source: its original's recipients who did not open (or click) it. */
export interface ResendSource {
  table: 'resend';
  utr: string;
  audience: ResendAudience;
}

/** Where a send's recipients come from: its audience entries, or for a resend its original. */
export type AudienceSource = RecipientEntry | ResendSource;

/** A send's audience sources in the order they are dispatched. */
export function audienceOf(send: Pick<SingleSend, 'recipient_id' | 'resend_of'>): AudienceSource[] {
  if (send.resend_of) return [{ table: 'resend', utr: send.resend_of.utr, audience: send.resend_of.audience }];
  return orderedAudience(send.recipient_id);
}

/**
 * Contact types come before segments: a contact reached both ways is then mailed with its full
 * contact record (custom fields and all), which a segment recipient does not carry.
 */
export function orderedAudience(entries: readonly RecipientEntry[]): RecipientEntry[] {
  const seen = new Set<string>();
  const distinct = entries.filter((entry) => {
    const key = `${entry.table}${entry.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [...distinct.filter((entry) => entry.table === 'contacts_'), ...distinct.filter((entry) => entry.table === 'segments_')];
}

/** Country names by id, for `((country))`; the contact holds the id. Unknown ids (or no reference data) show as stored. */
async function countryNames(contacts: readonly ContactRecord[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of new Set(contacts.map((contact) => contact.country))) {
    if (!/^\d+$/.test(id)) continue;
    const country = await findCountry(Number(id)).catch(() => undefined);
    if (country) names.set(id, country.name);
  }
  return names;
}

/** A segment recipient's placeholder values: the fields a segment keeps for each address. */
export function segmentRecipientFields(recipient: SegmentRecipient): Record<string, string> {
  const text = (value: string | null | undefined) => value ?? '';
  return {
    first_name: text(recipient.first_name),
    last_name: text(recipient.last_name),
    email: recipient.email,
    country: text(recipient.country),
    state: text(recipient.state),
    city: text(recipient.city),
    address_line1: text(recipient.address_line1),
    full_name: `${text(recipient.first_name)} ${text(recipient.last_name)}`.trim(),
  };
}

async function contactPage(accountId: number, contactTypeId: number, after: number | null, pageSize: number): Promise<AudiencePage | undefined> {
  // The type's contacts in id order from just after the cursor's contact id: the cursor is the same
  // plain id whether the type's index is sharded or not, so a stored cursor always resumes correctly.
  const contacts = await contactsOfTypePage(accountId, contactTypeId, after, pageSize);
  const last = contacts[contacts.length - 1];
  if (!last) return undefined;
  const names = await countryNames(contacts);
  return {
    recipients: contacts.map((contact) => ({ email: contact.email, contactId: contact.id, fields: contactFields(contact, names.get(contact.country)), ...pendingMark(contact) })),
    last: last.id,
  };
}

/** A pending contact travels marked, so the deliverer counts it skipped without mailing it. */
function pendingMark(contact: Pick<ContactRecord, 'subscription_status'> | undefined): { pending?: true } {
  return contact?.subscription_status === 'pending' ? { pending: true } : {};
}

/**
 * The pending contacts among a segment page's: read only when the segment's type ever had double
 * opt-in (no other type can hold a pending contact), so other sends read nothing more.
 */
async function pendingInSegment(accountId: number, segmentId: number, recipients: readonly SegmentRecipient[]): Promise<Set<number>> {
  const ids = recipients.flatMap((recipient) => (recipient.contact_id === null ? [] : [recipient.contact_id]));
  if (ids.length === 0) return new Set();
  const rules = await getSegmentRules(accountId, segmentId);
  if (!rules || !(await typeMayHoldPending(accountId, rules.contact_type_id))) return new Set();
  const contacts = await getContacts(accountId, ids);
  return new Set([...contacts.values()].filter((contact) => contact.subscription_status === 'pending').map((contact) => contact.id));
}

async function segmentPage(accountId: number, segmentId: number, after: string | null, pageSize: number): Promise<AudiencePage | undefined> {
  // Segment recipients are keyed, and so ordered, by lower-cased address: one Query from just after
  // the cursor's address reads each recipient once over a whole send, whatever the segment's size.
  const page = await segmentRecipientsAfter(accountId, segmentId, after, pageSize);
  if (page.last === undefined) return undefined;
  const pending = await pendingInSegment(accountId, segmentId, page.recipients);
  return {
    recipients: page.recipients.map((recipient) => ({
      email: recipient.email,
      contactId: recipient.contact_id,
      fields: segmentRecipientFields(recipient),
      ...(recipient.contact_id !== null && pending.has(recipient.contact_id) ? { pending: true as const } : {}),
    })),
    last: page.last,
  };
}

/** The markers that take a recipient out of a resend: a person's open or click (a click counts as an open), or a click. */
const engagedMarkers: Record<ResendAudience, readonly string[]> = { non_openers: ['open', 'click'], non_clickers: ['click'] };

/**
 * The next recorded part of the original's audience, as it stands now: those the original's ledger
 * marks mailed (SES took the mail; an unknown outcome is left out), who have not opened (or clicked)
 * it by now, whose contact still exists with the address mailed. A contact's placeholder values are
 * its current ones. The unsubscribed and suppressed are left out by the deliverer, as for any send.
 */
async function resendPage(accountId: number, source: ResendSource, after: string | null): Promise<AudiencePage | undefined> {
  const part = await nextAudiencePart(accountId, source.utr, after);
  if (!part) return undefined;
  const ref: SendRef = { kind: 'single-send', accountId, utr: source.utr };
  const members = [...new Map(part.members.map((member) => [member.email.trim().toLowerCase(), member])).values()];
  const emails = members.map((member) => member.email);
  const markers = engagedMarkers[source.audience];
  // Each marker where it is now and where it was stored before the ledger was kept by address.
  const markerKeys = (email: string) => markers.flatMap((marker) => [eventMarkerKey(ref, email, marker), legacyMarkerKey(ref, email, marker)]);
  const [ledger, engagedItems, contacts] = await Promise.all([
    ledgerEntriesAmong(ref, emails),
    batchGetAll(emails.flatMap(markerKeys), { concurrency: 4 }),
    getContacts(accountId, members.flatMap((member) => (member.contactId === null ? [] : [member.contactId]))),
  ]);
  const found = new Set(engagedItems.map((item) => `${String(item.pk)}|${String(item.sk)}`));
  const engagedWith = (email: string) => markerKeys(email).some((key) => found.has(`${key.pk}|${key.sk}`));
  const names = await countryNames([...contacts.values()]);
  const recipients: DeliveryRecipient[] = [];
  for (const member of members) {
    const address = member.email.trim().toLowerCase();
    if (ledger.get(address)?.state !== 'sent' || engagedWith(member.email)) continue;
    if (member.contactId === null) {
      recipients.push({ email: member.email, contactId: null, fields: member.fields ?? { email: member.email } });
      continue;
    }
    const contact = contacts.get(member.contactId);
    // Deleted since, or no longer at the address mailed: not the original's recipient any more.
    if (!contact || contact.email.trim().toLowerCase() !== address) continue;
    recipients.push({ email: contact.email, contactId: contact.id, fields: contactFields(contact, names.get(contact.country)), ...pendingMark(contact) });
  }
  return { recipients, last: part.position };
}

/** The next page of an entry after `after` (null: from the start); undefined when none is left. */
export function nextAudiencePage(accountId: number, entry: AudienceSource, after: number | string | null, pageSize: number): Promise<AudiencePage | undefined> {
  if (entry.table === 'resend') return resendPage(accountId, entry, typeof after === 'string' ? after : null);
  const id = Number(entry.id);
  if (entry.table === 'contacts_') return contactPage(accountId, id, typeof after === 'number' ? after : null, pageSize);
  return segmentPage(accountId, id, typeof after === 'string' ? after : null, pageSize);
}

/** Every address (lower-cased) the exclusion entries reach, each entry read in one pass. */
export async function excludedAddresses(accountId: number, entries: readonly RecipientEntry[], pageSize: number): Promise<Set<string>> {
  const excluded = new Set<string>();
  for (const entry of orderedAudience(entries)) {
    const id = Number(entry.id);
    if (entry.table === 'contacts_') {
      await forEachContactOfType(accountId, id, async (contacts) => contacts.forEach((contact) => excluded.add(contact.email.toLowerCase())), pageSize);
    } else {
      await forEachSegmentRecipient(accountId, id, async (recipients) => recipients.forEach((recipient) => excluded.add(recipient.email.toLowerCase())), pageSize);
    }
  }
  return excluded;
}
