// What `contacts/activity` answers: a page of an address's activity, newest first, merged from two
// streams of its partition: the timed entries (events after the mail, and consent) and the ledger
// entries of its mails, each its `sent` line, joined by its `delivered` (the mail's delivered marker,
// which SES's delivery event already writes); every mail event is given its subject.
import { activityCursor, activityCursorPosition, activityEntryOf, activityErasedAt, timedEntriesBefore, type ActivityEvent } from '../contacts/activity';
import { automationStepSubject } from '../automations/steps';
import { eventMarkerKey, legacyMarkerKey, mailsOfAddress } from '../ledger/repository';
import { decodeSendRef, type SendRef } from '../ledger/send-ref';
import { singleSendKey } from '../single-sends/keys';
import { isSingleSendUtr } from '../single-sends/repository';
import { batchGetAll } from '../table/batch';
import type { Key } from '../table/keys';
import type { ListPage, PageRequest } from '../table/pages';
import { getItem } from '../table/records';

/** One line of a contact's activity as the API shows it; what does not apply is null. */
export interface ActivityRow {
  event: ActivityEvent;
  /** The single send's utr, or the step's for a mail of an automation step. */
  utr: string | null;
  /** The automation's utr, only for a mail of one of its steps. */
  automation_utr: string | null;
  subject: string | null;
  url: string | null;
  at: string;
}

function refOf(text: string | undefined): SendRef | undefined {
  if (text === undefined) return undefined;
  try {
    return decodeSendRef(text);
  } catch {
    return undefined;
  }
}

/** The subject of what a reference names now; null once it is gone. */
async function currentSubject(ref: SendRef): Promise<string | null> {
  if (ref.kind === 'single-send') {
    if (!isSingleSendUtr(ref.utr)) return null;
    const item = await getItem(singleSendKey(ref.accountId, ref.utr), { projection: ['subject'] });
    return typeof item?.subject === 'string' ? item.subject : null;
  }
  return (await automationStepSubject(ref.accountId, ref.stepUtr)) ?? null;
}

/** One stored line of the list, from either stream, with its place in the list's order. */
interface StoredLine {
  /**
   * Unique within the address, descending newest first: a timed entry's sort key, and for a mail's
   * ledger entry `<claimed_at>#sent#<ref>` (the key its `sent` entry had when it was an item apart).
   */
  position: string;
  event: Exclude<ActivityEvent, 'delivered'>;
  at: string;
  ref?: SendRef;
  refText?: string;
  subject?: string;
  url?: string;
  /** Where its mail's delivered marker is, for a `sent` line. */
  delivered?: Key;
}

/**
 * One page of the activity of `email` in the account. `limit` counts stored lines (timed entries
 * and mails); a mail that was delivered brings its `delivered` line with it, so a page holds at most
 * twice as many lines. Lines are ordered newest first within the page.
 *
 * The cursor holds the last stored line's position. A page reads the timed entries below it (one
 * Query of `limit`), and all the address's ledger entries (an address is mailed at most a few times
 * a day and entries expire after 400 days: a bounded read, usually one Query page), then merges
 * them. A mail of an `erased` address (a contact deleted) from before its erasure is not listed.
 */
export async function contactActivityPage(accountId: number, email: string, page: PageRequest): Promise<ListPage<ActivityRow>> {
  const before = page.cursor === undefined ? undefined : activityCursorPosition(accountId, email, page.cursor);
  const [timed, mails, erasedAt] = await Promise.all([
    timedEntriesBefore(accountId, email, before, page.limit),
    mailsOfAddress(accountId, email),
    activityErasedAt(accountId, email),
  ]);
  const timedLines = timed.items.flatMap((item): StoredLine[] => {
    const entry = activityEntryOf(item);
    if (!entry) return [];
    const ref = refOf(entry.refText);
    // A `sent` entry stored before the ledger was kept by address: its marker is where it was then.
    const delivered = entry.event === 'sent' && ref ? legacyMarkerKey(ref, email, 'delivered') : undefined;
    return [{ position: String(item.sk), ...entry, ...(ref ? { ref } : {}), ...(delivered ? { delivered } : {}) }];
  });
  // Timed entries not read yet (the Query stopped at `limit`) lie below the last one read: no mail below it may be taken before them.
  const lastTimed = timed.items[timed.items.length - 1];
  const floor = timed.more && lastTimed ? String(lastTimed.sk) : undefined;
  const mailLines = mails.flatMap((mail): StoredLine[] => {
    const position = `${mail.claimedAt}#sent#${mail.refText}`;
    if ((erasedAt !== undefined && mail.claimedAt <= erasedAt) || (before !== undefined && position >= before) || (floor !== undefined && position < floor)) return [];
    return [
      {
        position,
        event: 'sent',
        at: mail.claimedAt,
        ref: mail.ref,
        refText: mail.refText,
        ...(mail.subject !== undefined ? { subject: mail.subject } : {}),
        delivered: eventMarkerKey(mail.ref, email, 'delivered'),
      },
    ];
  });
  const merged = [...timedLines, ...mailLines].sort((a, b) => (a.position < b.position ? 1 : a.position > b.position ? -1 : 0));
  const lines = merged.slice(0, page.limit);
  // As every list: `more` may turn out to be followed by an empty page.
  const position = lines[lines.length - 1]?.position ?? floor;
  const nextCursor = position !== undefined && (merged.length > lines.length || timed.more) ? activityCursor(accountId, email, position) : null;
  return { items: await activityRows(lines), nextCursor };
}

/** The API's lines of stored lines: each `sent` followed by its `delivered`, and every mail's subject. */
async function activityRows(lines: readonly StoredLine[]): Promise<ActivityRow[]> {
  const subjects = new Map<string, string | null>();
  for (const line of lines) if (line.event === 'sent' && line.refText && line.subject !== undefined) subjects.set(line.refText, line.subject);
  const missing = [...new Set(lines.flatMap((line) => (line.refText && line.ref && !subjects.has(line.refText) ? [line.refText] : [])))];
  const markers = lines.flatMap((line) => (line.delivered ? [line.delivered] : []));
  const [found, looked] = await Promise.all([
    batchGetAll(markers),
    Promise.all(missing.map(async (refText) => [refText, await currentSubject(decodeSendRef(refText))] as const)),
  ]);
  for (const [refText, subject] of looked) subjects.set(refText, subject);
  const deliveredAt = new Map(found.map((marker) => [`${String(marker.pk)}|${String(marker.sk)}`, String(marker.counted_at)]));
  const rows: ActivityRow[] = [];
  const row = (event: ActivityEvent, line: StoredLine, at: string): ActivityRow => ({
    event,
    utr: line.ref ? (line.ref.kind === 'single-send' ? line.ref.utr : line.ref.stepUtr) : null,
    automation_utr: line.ref?.kind === 'automation-step' ? line.ref.automationUtr : null,
    subject: line.refText === undefined ? null : (subjects.get(line.refText) ?? null),
    url: line.url ?? null,
    at,
  });
  for (const line of lines) {
    const delivered = line.delivered && deliveredAt.get(`${line.delivered.pk}|${line.delivered.sk}`);
    if (delivered) rows.push(row('delivered', line, delivered));
    rows.push(row(line.event, line, line.at));
  }
  // Stable: a line keeps its place beside another of the same moment.
  rows.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return rows;
}
