// An automation as the subject of the reputation of its steps' mails (ledger/sendable.ts): judged on its
// totals over every step, paused through its status (reputation-pause.ts).
import type { ReputationSubject } from '../ledger/sendable';
import { getAutomation } from './repository';
import { getAutomationReputationView, pauseAutomationForReputation } from './reputation-pause';

export function automationReputation(accountId: number, automationUtr: string): ReputationSubject {
  return {
    kind: 'automation',
    utr: automationUtr,
    async view() {
      const view = await getAutomationReputationView(accountId, automationUtr);
      return view && { pausable: view.live, counts: view.counts, base: view.base };
    },
    pause: (reason) => pauseAutomationForReputation(accountId, automationUtr, reason),
    afterPause: async () => {},
    name: async () => (await getAutomation(accountId, automationUtr).catch(() => undefined))?.automation_name ?? automationUtr,
  };
}
