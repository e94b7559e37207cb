// Send statistics: one call per event, added to the counters of what was sent (the single send, or the
// automation and its step: the port in ledger/sendable.ts). Every event counts at most once per
// recipient (a marker item claimed with a conditional put), except `total_opens` and `clicks`, which count every open and click: SES events
// and page hits may arrive twice. A machine's open and a bot's click (engagement-rules.ts) count on
// their own counters, every time, and claim no marker: a person who opens or clicks later still counts.
// A recipient of an A/B test's share also counts toward their subject's part: a marker of their first
// open or click (a click counts as an open), and their first click, on the same counter update.
import type { SendCounter, SendCounts, VariantCounts } from '../ledger/sendable';
import type { Key } from '../table/keys';
import { linkHash } from '../rendering/click-tracking';
import { claimEventMarker, eventMarkerKey, releaseEventMarker } from '../ledger/repository';
import type { SendRef } from '../ledger/send-ref';
import { sendableOf } from './sendable-of';
import { activityRetentionSeconds, recordActivity, type ActivityEntry } from '../contacts/activity';
import { describeError, log } from '../log';

export type SendEvent = 'triggered' | 'delivered' | 'bounce' | 'complaint' | 'open' | 'unsubscribe';

export const sendEvents: readonly SendEvent[] = ['triggered', 'delivered', 'bounce', 'complaint', 'open', 'unsubscribe'];

/** The once-per-recipient counter of each event. */
const onceCounter: Record<SendEvent, SendCounter> = {
  triggered: 'triggered',
  delivered: 'delivered',
  bounce: 'bounces',
  complaint: 'complaints',
  open: 'unique_opens',
  unsubscribe: 'unsubscribes',
};

/**
 * Count one event for one recipient. A single send or automation that no longer exists is left
 * alone (the event is dropped, nothing is recreated).
 *
 * The marker is claimed first (its own partition, so concurrent recipients never contend), then the
 * counter is added with a plain atomic update: a transaction holding the send's item would make every
 * delivery of a large send conflict with every other. A crash between the two loses one count,
 * never doubles one; a failed update gives the marker back.
 */
export async function recordSendEvent(ref: SendRef, event: SendEvent, recipientEmail: string, variant?: number): Promise<boolean> {
  const marker = eventMarkerKey(ref, recipientEmail, event);
  if (event === 'open' && variant !== undefined) {
    const test = await recordTestOpen(ref, recipientEmail, marker, variant);
    if (test.counted) await noteActivity(ref, recipientEmail, { event, ref });
    return test.first && test.counted;
  }
  // The delivered marker is also the contact activity's `delivered`: kept as long as the activity.
  const first = await claimEventMarker(marker, event === 'delivered' ? { keepSeconds: activityRetentionSeconds } : {});
  if (!first && event !== 'open') return false;
  let counted: boolean;
  try {
    const counts: SendCounts = first ? { [onceCounter[event]]: 1 } : {};
    if (event === 'open') counts.opens = 1;
    counted = await sendableOf(ref).addCounts(counts);
  } catch (error) {
    if (first) await releaseEventMarker(marker);
    throw error;
  }
  // Every person's open admitted (at most one an hour), and the first bounce, complaint or unsubscribe of the mail.
  if (counted && (event === 'open' || event === 'bounce' || event === 'complaint' || event === 'unsubscribe')) await noteActivity(ref, recipientEmail, { event, ref });
  // True only for the recipient's first of this event, counted: what engagement segments follow.
  return first && counted;
}

/**
 * Add the event to the recipient's activity once it is counted: logged, never thrown, so a failed
 * entry neither fails the event nor makes a retried one count twice.
 */
async function noteActivity(ref: SendRef, email: string, entry: Omit<ActivityEntry, 'at'>): Promise<void> {
  try {
    await recordActivity(ref.accountId, email, entry);
  } catch (error) {
    log.error('contact activity not recorded', { event: entry.event, ...describeError(error) });
  }
}

/** The marker of a test recipient's first open or click: their subject's `unique_opens` counts it once. */
const engagedEvent = 'ab-engaged';

/** A person's open of a test recipient's mail: the send's counts as any open, and their subject's once. */
async function recordTestOpen(ref: SendRef, recipientEmail: string, marker: Key, variant: number): Promise<{ first: boolean; counted: boolean }> {
  const engagedMarker = eventMarkerKey(ref, recipientEmail, engagedEvent);
  const [first, firstEngaged] = (await claimMarkers([marker, engagedMarker])) as [boolean, boolean];
  const claimed = [...(first ? [marker] : []), ...(firstEngaged ? [engagedMarker] : [])];
  try {
    const counted = await sendableOf(ref).addCounts({ opens: 1, ...(first ? { unique_opens: 1 } : {}) }, firstEngaged ? { variant, unique_opens: 1 } : undefined);
    return { first, counted };
  } catch (error) {
    await Promise.all(claimed.map(releaseEventMarker));
    throw error;
  }
}

/**
 * Count one click of a recipient on a link (its target URL): `clicks` every time, `unique_clicks`
 * once per recipient (on the send or step) and once per recipient and link (on the send's link item).
 * As with the other events, a failure before the send's counters are written gives the markers back;
 * after it, the link's count may be lost, never doubled. False when the send or step is gone (nothing counted).
 */
export async function recordClick(ref: SendRef, recipientEmail: string, target: string, variant?: number): Promise<boolean> {
  return (await recordClickOf(ref, recipientEmail, target, variant)).counted;
}

/** `recordClick`, saying also whether it was the recipient's first click on the send or step (`first`, counted). */
export async function recordClickOf(ref: SendRef, recipientEmail: string, target: string, variant?: number): Promise<{ counted: boolean; first: boolean }> {
  const linkMarker = eventMarkerKey(ref, recipientEmail, `click#${linkHash(target)}`);
  const clickMarker = eventMarkerKey(ref, recipientEmail, 'click');
  const engagedMarker = variant === undefined ? undefined : eventMarkerKey(ref, recipientEmail, engagedEvent);
  // At once (one round trip less for the reader waiting for the redirect): each is its own fact.
  const [firstOnLink = false, firstClick = false, firstEngaged = false] = await claimMarkers([linkMarker, clickMarker, ...(engagedMarker ? [engagedMarker] : [])]);
  const claimed = [...(firstOnLink ? [linkMarker] : []), ...(firstClick ? [clickMarker] : []), ...(firstEngaged && engagedMarker ? [engagedMarker] : [])];
  const counts = { clicks: 1, unique_clicks: firstClick ? 1 : 0 };
  const variantCounts: VariantCounts | undefined = variant === undefined ? undefined : { variant, unique_opens: firstEngaged ? 1 : 0, unique_clicks: firstClick ? 1 : 0 };
  const sendable = sendableOf(ref);
  let counted: boolean;
  try {
    counted = await sendable.addCounts(counts, variantCounts);
  } catch (error) {
    await Promise.all(claimed.map(releaseEventMarker));
    throw error;
  }
  // Automation steps show no links; a deleted send gets no link item.
  if (counted) await sendable.addLinkClick?.(target, firstOnLink);
  if (counted) await noteActivity(ref, recipientEmail, { event: 'click', ref, url: target });
  return { counted, first: counted && firstClick };
}

/**
 * Count an open by a machine (Apple's privacy proxy, a scanner): `machine_opens` alone, every time it
 * is admitted (at most once an hour per recipient, as any view of the pixel), no marker. False when
 * the send or step is gone.
 */
export function recordMachineOpen(ref: SendRef): Promise<boolean> {
  return sendableOf(ref).addCounts({ machine_opens: 1 });
}

/**
 * Count a bot's click: `bot_clicks` alone, every time it is admitted, no marker and no link count, so
 * the people's counts, per-link counts and most clicked links never see it. False when the send or step is gone.
 */
export function recordBotClick(ref: SendRef): Promise<boolean> {
  return sendableOf(ref).addCounts({ bot_clicks: 1 });
}

/** Claim markers concurrently: which were first. On a failure, those claimed are given back. */
export async function claimMarkers(markers: readonly Key[], options: { keepSeconds?: number; lookBefore?: boolean } = {}): Promise<boolean[]> {
  const outcomes = await Promise.allSettled(markers.map((marker) => claimEventMarker(marker, options)));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  const first = outcomes.map((outcome) => outcome.status === 'fulfilled' && outcome.value);
  if (failure) {
    await Promise.all(markers.filter((_, i) => first[i]).map(releaseEventMarker));
    throw failure.reason;
  }
  return first;
}

/**
 * Add the mails handed to SES (`triggered`) of an automation step's delivery in one update, without
 * markers: the ledger already guarantees each recipient is reported once, since only the holder of a
 * recipient's claim sends to them. One write per batch instead of two per recipient. (A single send's
 * batch is counted as it settles, in the settling transaction: settleDeliveryBatch.) Delivered mail is
 * counted by its SES delivery event (recordSendEvent).
 */
export async function addSentCounts(ref: SendRef, triggered: number): Promise<void> {
  if (triggered === 0) return;
  await sendableOf(ref).addCounts({ triggered });
}
