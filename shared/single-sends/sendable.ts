// A single send as the port for what can be sent (ledger/sendable.ts): its counters are its counter
// shards, and its links keep per-link counts.
import type { Sendable, SendCounter, SendCounts } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { addSingleSendCounts, type SingleSendCounter } from './counters';
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

export function singleSendSendable(ref: SendRef & { kind: 'single-send' }): Sendable {
  return {
    ref,
    addCounts: (counts: SendCounts) =>
      addSingleSendCounts(ref.accountId, ref.utr, Object.fromEntries(Object.entries(counts).map(([name, value]) => [storedAs[name as SendCounter], value]))),
    addLinkClick: (target, firstOnLink) => addLinkClick(ref, target, firstOnLink),
  };
}
