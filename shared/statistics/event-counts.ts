// Send statistics: one call per event, counted with atomic counters on the single send, or on the
// automation and its step. Every event counts at most once per recipient (a marker item claimed with a
// conditional put), except `total_opens` and `clicks`, which count every open and click: SES events
// and page hits may arrive twice.
import { addAutomationTotals, type AutomationTotal, type AutomationTotalsChange } from '../automations/repository';
import { addStepCounts, type StepCounter, type StepCounts } from '../automations/step-counters';
import { addSingleSendCounts, type SingleSendCounter } from '../single-sends/counters';
import type { Key } from '../table/keys';
import { linkHash } from '../rendering/click-tracking';
import { claimEventMarker, eventMarkerKey, releaseEventMarker } from '../ledger/repository';
import { addLinkClick } from './link-click-counts';
import type { SendRef } from '../ledger/send-ref';

export type SendEvent = 'triggered' | 'delivered' | 'bounce' | 'complaint' | 'open' | 'unsubscribe';

export const sendEvents: readonly SendEvent[] = ['triggered', 'delivered', 'bounce', 'complaint', 'open', 'unsubscribe'];

/** The once-per-recipient counter of each event on a single send. */
const singleSendCounter: Record<SendEvent, SingleSendCounter> = {
  triggered: 'triggered',
  delivered: 'delivered',
  bounce: 'bounces',
  complaint: 'complaints',
  open: 'unique_opens',
  unsubscribe: 'unsubscribes',
};

/** The same on an automation (the spec's `total_*` names; the spec's automation has no complaints). */
const automationCounter: Partial<Record<SendEvent, AutomationTotal>> = {
  triggered: 'total_triggered',
  delivered: 'total_delivered',
  bounce: 'total_bounces',
  open: 'total_unique_opens',
  unsubscribe: 'total_unsubscribe',
};

/** The same on an automation's step (its line of `automations/stats`, which shows no triggered). */
const stepCounter: Partial<Record<SendEvent, StepCounter>> = {
  delivered: 'delivered',
  bounce: 'bounces',
  complaint: 'complaints',
  open: 'unique_opens',
  unsubscribe: 'unsubscribes',
};

/** Add to the counters of an automation and of the step the reference names. */
async function addAutomationStepCounts(ref: SendRef & { kind: 'automation-step' }, totals: AutomationTotalsChange, step: Partial<StepCounts>): Promise<void> {
  // Each is false when its item is gone: the event is dropped there and the marker can stay.
  await Promise.all([addAutomationTotals(ref.accountId, ref.automationUtr, totals), addStepCounts(ref.accountId, ref.stepUtr, step)]);
}

/**
 * Count one event for one recipient. A single send or automation that no longer exists is left
 * alone (the event is dropped, nothing is recreated).
 *
 * The marker is claimed first (its own partition, so concurrent recipients never contend), then the
 * counter is added with a plain atomic update: a transaction holding the send's item would make every
 * delivery of a large send conflict with every other. A crash between the two loses one count,
 * never doubles one; a failed update gives the marker back.
 */
export async function recordSendEvent(ref: SendRef, event: SendEvent, recipientEmail: string): Promise<void> {
  const marker = eventMarkerKey(ref, recipientEmail, event);
  const first = await claimEventMarker(marker);
  if (!first && event !== 'open') return;
  try {
    if (ref.kind === 'single-send') {
      const counts: Partial<Record<SingleSendCounter, number>> = first ? { [singleSendCounter[event]]: 1 } : {};
      if (event === 'open') counts.total_opens = 1;
      await addSingleSendCounts(ref.accountId, ref.utr, counts);
    } else {
      const totalName = automationCounter[event];
      const stepName = stepCounter[event];
      const totals: AutomationTotalsChange = first && totalName ? { [totalName]: 1 } : {};
      const step: Partial<StepCounts> = first && stepName ? { [stepName]: 1 } : {};
      if (event === 'open') {
        totals.total_opens = 1;
        step.opens = 1;
      }
      await addAutomationStepCounts(ref, totals, step);
    }
  } catch (error) {
    if (first) await releaseEventMarker(marker);
    throw error;
  }
}

/**
 * Count one click of a recipient on a link (its target URL): `clicks` every time, `unique_clicks`
 * once per recipient (on the send or step) and once per recipient and link (on the send's link item).
 * As with the other events, a failure before the send's counters are written gives the markers back;
 * after it, the link's count may be lost, never doubled. False when the send or step is gone (nothing counted).
 */
export async function recordClick(ref: SendRef, recipientEmail: string, target: string): Promise<boolean> {
  const linkMarker = eventMarkerKey(ref, recipientEmail, `click#${linkHash(target)}`);
  const clickMarker = eventMarkerKey(ref, recipientEmail, 'click');
  // Both at once (one round trip less for the reader waiting for the redirect): each is its own fact.
  const [firstOnLink, firstClick] = (await claimMarkers([linkMarker, clickMarker])) as [boolean, boolean];
  const claimed = [...(firstOnLink ? [linkMarker] : []), ...(firstClick ? [clickMarker] : [])];
  const counts = { clicks: 1, unique_clicks: firstClick ? 1 : 0 };
  let counted: boolean;
  try {
    counted = ref.kind === 'single-send' ? await addSingleSendCounts(ref.accountId, ref.utr, counts) : await addStepCounts(ref.accountId, ref.stepUtr, counts);
  } catch (error) {
    await Promise.all(claimed.map(releaseEventMarker));
    throw error;
  }
  // Automation steps show no links; a deleted send gets no link item.
  if (counted && ref.kind === 'single-send') await addLinkClick(ref, target, firstOnLink);
  return counted;
}

/** Claim markers concurrently: which were first. On a failure, those claimed are given back. */
async function claimMarkers(markers: readonly Key[]): Promise<boolean[]> {
  const outcomes = await Promise.allSettled(markers.map(claimEventMarker));
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
  if (ref.kind === 'single-send') {
    await addSingleSendCounts(ref.accountId, ref.utr, { triggered });
    return;
  }
  await addAutomationStepCounts(ref, { total_triggered: triggered }, {});
}
