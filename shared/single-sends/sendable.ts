// A single send as the port for what can be sent (ledger/sendable.ts): its counters are its counter
// shards, its links keep per-link counts, and its reputation is its own.
import type { ReputationSubject, Sendable, SendCounter, SendCounts } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { addSingleSendCounts, type SingleSendCounter } from './counters';
import { addLinkClick } from './link-clicks';
import { getDispatchState, getSendingSingleSend } from './progress';
import { getReputationView, pauseForReputation } from './reputation-pause';
import { unwatch } from './stall-watch';

/** Each counter of the port under the name a single send stores it (the spec's statistics). */
const storedAs: Record<SendCounter, SingleSendCounter> = {
  triggered: 'triggered',
  delivered: 'delivered',
  bounces: 'bounces',
  complaints: 'complaints',
  opens: 'total_opens',
  unique_opens: 'unique_opens',
  clicks: 'clicks',
  unique_clicks: 'unique_clicks',
  unsubscribes: 'unsubscribes',
};

function singleSendReputation(accountId: number, utr: string): ReputationSubject {
  return {
    kind: 'single-send',
    utr,
    async view() {
      const view = await getReputationView(accountId, utr);
      if (!view) return undefined;
      const neverResumed = view.base.delivered + view.base.bounces + view.base.complaints === 0;
      return {
        pausable: view.running && !view.paused,
        counts: view.counts,
        base: view.base,
        // Judged before the minimum of reported mails only while never resumed: after a resume, only what SES reports since counts.
        queued: neverResumed ? async () => (await getDispatchState(accountId, utr))?.fannedRecipients ?? 0 : undefined,
      };
    },
    pause: (reason) => pauseForReputation(accountId, utr, reason),
    // A paused send waits for a person: it is not stalled.
    afterPause: () => unwatch(accountId, utr),
    name: async () => (await getSendingSingleSend(accountId, utr))?.single_send_name ?? utr,
  };
}

export function singleSendSendable(ref: SendRef & { kind: 'single-send' }): Sendable {
  return {
    ref,
    addCounts: (counts: SendCounts) =>
      addSingleSendCounts(ref.accountId, ref.utr, Object.fromEntries(Object.entries(counts).map(([name, value]) => [storedAs[name as SendCounter], value]))),
    addLinkClick: (target, firstOnLink) => addLinkClick(ref, target, firstOnLink),
    reputation: singleSendReputation(ref.accountId, ref.utr),
  };
}
