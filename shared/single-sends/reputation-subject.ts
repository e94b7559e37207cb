// A single send as the subject of its own reputation (ledger/sendable.ts): judged on its counters since
// its last resume, paused through its waiting state (reputation-pause.ts).
import type { ReputationSubject } from '../ledger/sendable';
import { getDispatchState, getSendingSingleSend } from './progress';
import { getReputationView, pauseForReputation } from './reputation-pause';
import { unwatch } from './stall-watch';

export function singleSendReputation(accountId: number, utr: string): ReputationSubject {
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
