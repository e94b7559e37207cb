// Send statistics: one call per event, counted with atomic counters on the single send or the
// automation. Every event counts at most once per recipient (a marker item claimed with a conditional
// put), except `total_opens`, which counts every open: SES events and page hits may arrive twice.
import { addAutomationTotals, type AutomationTotal, type AutomationTotalsChange } from '../automations/repository';
import { addSingleSendCounts, type SingleSendCounter } from '../single-sends/progress';
import { claimEventMarker, eventMarkerKey, releaseEventMarker } from './ledger';
import type { SendRef } from './send-ref';

export type SendEvent = 'triggered' | 'delivered' | 'bounce' | 'open' | 'unsubscribe';

export const sendEvents: readonly SendEvent[] = ['triggered', 'delivered', 'bounce', 'open', 'unsubscribe'];

/** The once-per-recipient counter of each event on a single send. */
const singleSendCounter: Record<SendEvent, SingleSendCounter> = {
  triggered: 'triggered',
  delivered: 'delivered',
  bounce: 'bounces',
  open: 'unique_opens',
  unsubscribe: 'unsubscribes',
};

/** The same on an automation (the spec's `total_*` names). */
const automationCounter: Record<SendEvent, AutomationTotal> = {
  triggered: 'total_triggered',
  delivered: 'total_delivered',
  bounce: 'total_bounces',
  open: 'total_unique_opens',
  unsubscribe: 'total_unsubscribe',
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
      const deltas: AutomationTotalsChange = first ? { [automationCounter[event]]: 1 } : {};
      if (event === 'open') deltas.total_opens = 1;
      // False when the automation is gone: the event is dropped and the marker can stay.
      await addAutomationTotals(ref.accountId, ref.automationUtr, deltas);
    }
  } catch (error) {
    if (first) await releaseEventMarker(marker);
    throw error;
  }
}

/**
 * Add an automation step's mails handed to SES (and, locally, delivered) in one update, without
 * markers: the ledger already guarantees each recipient is reported once, since only the holder of a
 * recipient's claim sends to them. One write per batch instead of two per recipient. (A single send's
 * batch is counted as it settles, in the settling transaction: settleDeliveryBatch.)
 */
export async function addSentCounts(ref: SendRef, counts: { triggered: number; delivered: number }): Promise<void> {
  if (counts.triggered === 0 && counts.delivered === 0) return;
  if (ref.kind === 'single-send') {
    await addSingleSendCounts(ref.accountId, ref.utr, { triggered: counts.triggered, delivered: counts.delivered });
    return;
  }
  await addAutomationTotals(ref.accountId, ref.automationUtr, { total_triggered: counts.triggered, total_delivered: counts.delivered });
}
