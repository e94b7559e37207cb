// A contact's activity: one small item per event of the mail sent to its address (sent, open, click,
// bounce, complaint, unsubscribe) and per consent event (opt_in_confirmed), newest first, kept 400
// days. Kept by address, not by contact id: every event knows the address it concerns (SES events
// and recipient links carry it), none needs a read to find the contact, and a mail goes to an
// address once per send whichever contact of which type reached it. `delivered` is never written
// here: it is the send's delivered marker, read beside the `sent` entry (statistics/contact-activity.ts).
import { createHash } from 'node:crypto';
import { isoTimestamp } from '../time';
import { batchWriteAll, deleteRequest, putRequest } from '../table/batch';
import { entityPartition, type Key } from '../table/keys';
import { queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { putItem, queryPage, type Item } from '../table/records';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';

/** The events a contact's activity lists (`delivered` is derived, never stored). */
export const activityEvents = ['sent', 'delivered', 'open', 'click', 'bounce', 'complaint', 'unsubscribe', 'opt_in_confirmed'] as const;
export type ActivityEvent = (typeof activityEvents)[number];

/** The events stored as items of their own. */
export type StoredActivityEvent = Exclude<ActivityEvent, 'delivered'>;

/**
 * How long an entry is kept (TTL): 400 days, so a year's activity can always be compared with the
 * year before's. DynamoDB removes expired items within days of their time, at no write cost.
 */
export const activityRetentionSeconds = 400 * 24 * 3600;

const ACTIVITY = 'contact-activity';

/** The partition of one address's activity in an account (the address lower-cased). */
export function activityPartition(accountId: number, email: string): string {
  return entityPartition(accountId, `${ACTIVITY}#${email.trim().toLowerCase()}`);
}

/** An entry as stored: short attribute names, since a `sent` entry is written for every mail. */
export interface ActivityEntry {
  event: StoredActivityEvent;
  /** The send or automation step the mail came from; absent for events of no mail. */
  ref?: SendRef;
  /** Only on `sent`: the mail's subject (the other events of the mail take it from there or from the send). */
  subject?: string;
  /** Only on `click`: the link's target. */
  url?: string;
  /** ISO 8601, as every timestamp of the API (`isoTimestamp`). */
  at: string;
}

function expiresAt(from: Date): number {
  return Math.floor(from.getTime() / 1000) + activityRetentionSeconds;
}

/**
 * The entry's item. The sort key is its time, its event and its mail, so entries list newest first
 * and writing the same event of the same mail at the same moment again (a redelivered batch) changes
 * nothing; a click adds a hash of its link, so two links clicked in one millisecond are two entries.
 */
function activityItem(accountId: number, email: string, entry: ActivityEntry): Item & Key {
  const refText = entry.ref ? encodeSendRef(entry.ref) : '';
  const link = entry.url === undefined ? '' : `#${createHash('sha256').update(entry.url).digest('base64url').slice(0, 8)}`;
  return {
    pk: activityPartition(accountId, email),
    sk: `${entry.at}#${entry.event}#${refText}${link}`,
    e: entry.event,
    ...(refText ? { r: refText } : {}),
    ...(entry.subject !== undefined ? { s: entry.subject } : {}),
    ...(entry.url !== undefined ? { u: entry.url } : {}),
    expires_at: expiresAt(new Date(entry.at)),
  };
}

/** Record one event of one address. */
export async function recordActivity(accountId: number, email: string, entry: Omit<ActivityEntry, 'at'> & { at?: string }): Promise<void> {
  const at = entry.at ?? isoTimestamp();
  await putItem({ Item: activityItem(accountId, email, { ...entry, at }) });
}

/** One mail handed to SES: to whom, and when its ledger claim was taken (its `sent` time). */
export interface SentMail {
  email: string;
  at: string;
}

/**
 * The `sent` entries of one delivery run, 25 to a BatchWriteItem: one plain write unit a mail (an
 * entry stays well under 1 KB), no conditions, and a redelivered batch rewrites the same keys.
 */
export async function recordMailsSent(ref: SendRef, subject: string, mails: readonly SentMail[]): Promise<void> {
  if (mails.length === 0) return;
  await batchWriteAll(mails.map((mail) => putRequest(activityItem(ref.accountId, mail.email, { event: 'sent', ref, subject, at: mail.at }))), { concurrency: 2 });
}

/**
 * The writer of `opt_in_confirmed`: a contact pressed the confirmation button of a double opt-in
 * mail. Called by the confirmation when it is built; kept here so its entry has the shape of the rest.
 */
export function recordOptInConfirmed(accountId: number, email: string, at?: Date): Promise<void> {
  return recordActivity(accountId, email, { event: 'opt_in_confirmed', ...(at ? { at: isoTimestamp(at) } : {}) });
}

/** A stored entry read back; undefined for an item that is not one. */
export function activityEntryOf(item: Item): (ActivityEntry & { refText?: string }) | undefined {
  const event = String(item.e) as StoredActivityEvent;
  if (!activityEvents.includes(event) || event === ('delivered' as string)) return undefined;
  const at = String(item.sk).split('#')[0] ?? '';
  return {
    event,
    at,
    ...(typeof item.r === 'string' ? { refText: item.r } : {}),
    ...(typeof item.s === 'string' ? { subject: item.s } : {}),
    ...(typeof item.u === 'string' ? { url: item.u } : {}),
  };
}

/** One page of an address's activity, newest first, with the list's signed cursor. */
export function activityPage(accountId: number, email: string, page: PageRequest): Promise<ListPage<Item>> {
  return queryListPage({ partition: activityPartition(accountId, email), descending: true }, page);
}

/** Entries deleted per Query while purging. */
const purgePage = 500;

/** Delete every entry of these addresses (a deleted contact's): one Query per 500 entries and 25 deletes per request. */
export async function deleteActivityOf(accountId: number, emails: readonly string[]): Promise<void> {
  for (const email of new Set(emails.map((address) => address.trim().toLowerCase()))) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await queryPage({ partition: activityPartition(accountId, email), limit: purgePage, cursor });
      cursor = page.next;
      await batchWriteAll(page.items.map((item) => deleteRequest(item)), { concurrency: 4 });
    } while (cursor);
  }
}
