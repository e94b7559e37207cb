// A contact's activity: one small item per event of the mail sent to its address (open, click,
// bounce, complaint, unsubscribe) and per consent event (opt_in_confirmed), its sort key starting
// with its time, kept 400 days. Kept by address, not by contact id: every event knows the address it
// concerns (SES events and recipient links carry it), none needs a read to find the contact, and a
// mail goes to an address once per send whichever contact of which type reached it. `sent` and
// `delivered` are never written here: they are the mail's ledger entry and delivered marker, kept in
// the same partition (ledger/keys.ts) and merged in by statistics/contact-activity.ts. (`sent` items
// stored before that stay listed until they expire.)
import { createHash } from 'node:crypto';
import { currentTime, isoTimestamp } from '../time';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { type Key } from '../table/keys';
import { cursorPosition, positionCursor } from '../table/pages';
import { getItem, putItem, queryPage, type Item } from '../table/records';
import { addressPartition, addressRetentionSeconds } from '../ledger/keys';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';

/** The events a contact's activity lists (`sent` and `delivered` come from the ledger, see above). */
export const activityEvents = ['sent', 'delivered', 'open', 'click', 'bounce', 'complaint', 'unsubscribe', 'opt_in_confirmed'] as const;
export type ActivityEvent = (typeof activityEvents)[number];

/** The events stored as items of their own (`sent` only in items stored before the ledger was kept by address). */
export type StoredActivityEvent = Exclude<ActivityEvent, 'delivered'>;

/**
 * How long an entry is kept (TTL): 400 days, so a year's activity can always be compared with the
 * year before's, and as long as the ledger entries of the address's mails. DynamoDB removes expired
 * items within days of their time, at no write cost.
 */
export const activityRetentionSeconds = addressRetentionSeconds;

/** The partition of one address's activity in an account (the address lower-cased). */
export const activityPartition = addressPartition;

/**
 * The upper bound of the timed entries' sort keys: each starts with its ISO 8601 time (a digit),
 * below the address's ledger entries (`mail#`), markers (`mark#`) and erasure mark.
 */
const timedEnd = ':';

/** The item saying when the address's activity was last erased (a contact deleted). */
const erasedSortKey = 'erased';

/** An entry as stored: short attribute names, since an event of a mail may be written for every mail. */
export interface ActivityEntry {
  event: StoredActivityEvent;
  /** The send or automation step the mail came from; absent for events of no mail. */
  ref?: SendRef;
  /** Only on `sent` (stored before the ledger was kept by address): the mail's subject. */
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

/** The timed entries of an address older than a position, newest first, and whether more may follow. */
export interface TimedEntries {
  items: Item[];
  more: boolean;
}

/**
 * Up to `limit` timed entries of an address whose sort key is below `before` (all of them when
 * undefined), newest first: one Query.
 */
export async function timedEntriesBefore(accountId: number, email: string, before: string | undefined, limit: number): Promise<TimedEntries> {
  const page = await queryPage({ partition: activityPartition(accountId, email), below: before ?? timedEnd, descending: true, limit });
  return { items: page.items, more: page.next !== undefined };
}

/** The signed cursor of an address's activity list, positioned at the ordering key of a page's last line. */
export function activityCursor(accountId: number, email: string, position: string): string {
  return positionCursor(activityPartition(accountId, email), position);
}

/**
 * The position an activity cursor holds (a cursor issued before the ledger was kept by address
 * holds the last entry's sort key, the same position). Throws InvalidCursor for another list's.
 */
export function activityCursorPosition(accountId: number, email: string, cursor: string): string {
  return cursorPosition(activityPartition(accountId, email), cursor);
}

/** When the address's activity was last erased (ISO 8601); undefined when it never was. */
export async function activityErasedAt(accountId: number, email: string): Promise<string | undefined> {
  const item = await getItem({ pk: activityPartition(accountId, email), sk: erasedSortKey });
  return typeof item?.at === 'string' ? item.at : undefined;
}

/** Entries deleted per Query while purging. */
const purgePage = 500;

const erasedMarginSeconds = 30 * 24 * 3600;

/**
 * Erase the activity of these addresses (a deleted contact's): its timed entries are deleted (one
 * Query per 500 and 25 deletes per request), and one item notes the moment, before which the
 * address's mails are no longer listed. Their ledger entries and markers stay until they expire: the
 * ledger keeps a send (or an automation step) from mailing the address again, even once a contact
 * with the address is added back while it runs, and the markers keep its statistics from counting
 * the mail's events twice.
 */
export async function deleteActivityOf(accountId: number, emails: readonly string[]): Promise<void> {
  for (const email of new Set(emails.map((address) => address.trim().toLowerCase()))) {
    // First, so a purge cut short still hides the mails. Kept a month past the entries it hides,
    // which DynamoDB removes within days of their time.
    await putItem({ Item: { pk: activityPartition(accountId, email), sk: erasedSortKey, at: isoTimestamp(), expires_at: expiresAt(currentTime()) + erasedMarginSeconds } });
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await queryPage({ partition: activityPartition(accountId, email), below: timedEnd, limit: purgePage, cursor });
      cursor = page.next;
      await batchWriteAll(page.items.map((item) => deleteRequest(item)), { concurrency: 4 });
    } while (cursor);
  }
}
