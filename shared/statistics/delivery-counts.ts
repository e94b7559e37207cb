// SES's delivery events of one send or automation step counted together: each recipient's delivered
// marker is claimed as for a single event (a marker already held means SES repeated the event), and
// the markers newly claimed are added to the counters in one write instead of one per event.
import type { Key } from '../table/keys';
import { eventMarkerKey, releaseEventMarker } from '../ledger/repository';
import type { SendRef } from '../ledger/send-ref';
import { activityRetentionSeconds } from '../contacts/activity';
import { claimMarkers } from './event-counts';
import { sendableOf } from './sendable-of';

export interface DeliveriesCounted {
  /** Recipients counted delivered by this call: those whose marker it claimed. */
  first: number;
  /** False when nothing was added: no new recipient, or the send or step is gone (nothing is recreated). */
  counted: boolean;
}

/**
 * Count the deliveries to `recipients` of what `ref` names. When a claim or the count fails, the
 * markers claimed are given back before it throws, so the same events can be counted again whole; a
 * crash between the claims and the count loses those counts, never doubles one. `countedBefore: false`
 * (the mails' SES tag says their markers are kept by address) skips the look for a marker stored before.
 */
export async function recordDeliveries(ref: SendRef, recipients: readonly string[], options: { countedBefore?: boolean } = {}): Promise<DeliveriesCounted> {
  const markers = uniqueKeys(recipients.map((email) => eventMarkerKey(ref, email, 'delivered')));
  // The delivered marker is also the contact activity's `delivered`: kept as long as the activity.
  const first = await claimMarkers(markers, { keepSeconds: activityRetentionSeconds, lookBefore: options.countedBefore ?? true });
  const claimed = markers.filter((_, i) => first[i]);
  if (claimed.length === 0) return { first: 0, counted: false };
  let counted: boolean;
  try {
    counted = await sendableOf(ref).addCounts({ delivered: claimed.length });
  } catch (error) {
    await Promise.allSettled(claimed.map(releaseEventMarker));
    throw error;
  }
  return { first: claimed.length, counted };
}

/** Each marker once: SES may repeat an event within one batch, and two claims of one marker would race. */
function uniqueKeys(keys: readonly Key[]): Key[] {
  return [...new Map(keys.map((key) => [`${key.pk}\n${key.sk}`, key])).values()];
}
