// What `contacts/activity` answers: a page of an address's activity entries, newest first, each
// `sent` entry joined by its mail's `delivered` (the send's delivered marker, which SES's delivery
// event already writes: no entry of its own on the send path), and every mail event given its subject.
import { activityEntryOf, activityPage, type ActivityEvent } from '../contacts/activity';
import { automationStepSubject } from '../automations/steps';
import { eventMarkerKey } from '../ledger/repository';
import { decodeSendRef, type SendRef } from '../ledger/send-ref';
import { singleSendKey } from '../single-sends/keys';
import { isSingleSendUtr } from '../single-sends/repository';
import { batchGetAll } from '../table/batch';
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

/**
 * One page of the activity of `email` in the account. `limit` counts stored entries; a `sent` entry
 * whose mail was delivered brings its `delivered` line with it, so a page holds at most twice as
 * many lines. Lines are ordered newest first within the page.
 */
export async function contactActivityPage(accountId: number, email: string, page: PageRequest): Promise<ListPage<ActivityRow>> {
  const stored = await activityPage(accountId, email, page);
  const entries = stored.items.flatMap((item) => {
    const entry = activityEntryOf(item);
    return entry ? [{ ...entry, ref: refOf(entry.refText) }] : [];
  });
  const sentRefs = [...new Set(entries.flatMap((entry) => (entry.event === 'sent' && entry.ref && entry.refText ? [entry.refText] : [])))];
  const subjects = new Map<string, string | null>();
  for (const entry of entries) if (entry.event === 'sent' && entry.refText && entry.subject !== undefined) subjects.set(entry.refText, entry.subject);
  const missing = [...new Set(entries.flatMap((entry) => (entry.refText && entry.ref && !subjects.has(entry.refText) ? [entry.refText] : [])))];
  const [markers, looked] = await Promise.all([
    batchGetAll(sentRefs.map((refText) => eventMarkerKey(decodeSendRef(refText), email, 'delivered'))),
    Promise.all(missing.map(async (refText) => [refText, await currentSubject(decodeSendRef(refText))] as const)),
  ]);
  for (const [refText, subject] of looked) subjects.set(refText, subject);
  const deliveredAt = new Map(markers.map((marker) => [String(marker.pk), String(marker.counted_at)]));
  const rows: ActivityRow[] = [];
  const row = (event: ActivityEvent, ref: SendRef | undefined, refText: string | undefined, at: string, url?: string): ActivityRow => ({
    event,
    utr: ref ? (ref.kind === 'single-send' ? ref.utr : ref.stepUtr) : null,
    automation_utr: ref?.kind === 'automation-step' ? ref.automationUtr : null,
    subject: refText === undefined ? null : (subjects.get(refText) ?? null),
    url: url ?? null,
    at,
  });
  for (const entry of entries) {
    if (entry.event === 'sent' && entry.ref) {
      const delivered = deliveredAt.get(eventMarkerKey(entry.ref, email, 'delivered').pk);
      if (delivered) rows.push(row('delivered', entry.ref, entry.refText, delivered));
    }
    rows.push(row(entry.event, entry.ref, entry.refText, entry.at, entry.url));
  }
  // Stable: a line keeps its place beside another of the same moment.
  rows.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { items: rows, nextCursor: stored.nextCursor };
}
