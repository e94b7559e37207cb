// A single send as the port for what can be sent (ledger/sendable.ts): its counters are its counter
// shards, and its links keep per-link counts.
import type { Sendable, SendCounter, SendCounts, VariantCounts } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { abCounterNames } from './ab-test';
import { addSingleSendCounts, type CountChanges, type SingleSendCounter } from './counters';
import { addLinkClick } from './link-clicks';

/** Each counter of the port under the name a single send stores it (the spec's statistics). */
const storedAs: Record<SendCounter, SingleSendCounter> = {
  triggered: 'triggered',
  delivered: 'delivered',
  bounces: 'bounces',
  complaints: 'complaints',
  opens: 'total_opens',
  unique_opens: 'unique_opens',
  machine_opens: 'machine_opens',
  clicks: 'clicks',
  unique_clicks: 'unique_clicks',
  bot_clicks: 'bot_clicks',
  unsubscribes: 'unsubscribes',
};

/** A test subject's counts under their names on the counter shards, in the same update as the send's. */
function variantChanges(variant: VariantCounts | undefined): CountChanges {
  if (!variant) return {};
  const names = abCounterNames(variant.variant);
  return { [names.unique_opens]: variant.unique_opens ?? 0, [names.unique_clicks]: variant.unique_clicks ?? 0 };
}

export function singleSendSendable(ref: SendRef & { kind: 'single-send' }): Sendable {
  return {
    ref,
    addCounts: (counts: SendCounts, variant?: VariantCounts) =>
      addSingleSendCounts(ref.accountId, ref.utr, {
        ...Object.fromEntries(Object.entries(counts).map(([name, value]) => [storedAs[name as SendCounter], value])),
        ...variantChanges(variant),
      }),
    addLinkClick: (target, firstOnLink) => addLinkClick(ref, target, firstOnLink),
  };
}
