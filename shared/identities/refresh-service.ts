// The periodic check of what waits on SES: domains still pending (their DKIM records not yet found)
// and senders whose address was registered and is not verified yet. It reads only the pending index
// (gsi1, see keys.ts), never the table or every account, and only the waits SES may still settle:
// SES looks for a domain's DKIM records for 72 hours, and its verification link lives 24 hours.
import { currentTime } from '../time';
import { describeError, log } from '../log';
import { RecordNotFound } from '../table/errors';
import { pendingSendersPage } from '../senders/repository';
import { refreshSenderVerification } from './address-service';
import { pendingDomainsPage } from './domain-repository';
import { refreshSenderDomain } from './domain-service';
import { domainProofHours } from './identities';

/** Minutes between two runs of the check (an EventBridge rule deployed, the local scheduler locally). */
export const identityRefreshIntervalMinutes = 15;

/** How far back the check looks: a little past the time SES gives each kind. */
export const pendingDomainHours = domainProofHours;
export const pendingSenderHours = 25;

/**
 * Entries of each kind one run looks at, at most: SES's identity calls are throttled per account and
 * region, so a run stays small; what it leaves is looked at by the next run (the oldest first).
 */
export const refreshBatchLimit = 200;

const pageSize = 50;

export interface RefreshCount {
  checked: number;
  verified: number;
  failed: number;
}

export interface RefreshRun {
  domains: RefreshCount;
  senders: RefreshCount;
}

const hoursBefore = (now: Date, hours: number): string => new Date(now.getTime() - hours * 3_600_000).toISOString();

/** Look at the index's entries of one kind, page by page; one entry's failure is logged and the rest go on. */
async function refreshEach<Entry extends { position: string }>(
  kind: string,
  readPage: (after: string | undefined) => Promise<{ entries: Entry[]; last: boolean }>,
  refresh: (entry: Entry) => Promise<boolean>,
): Promise<RefreshCount> {
  const count: RefreshCount = { checked: 0, verified: 0, failed: 0 };
  let after: string | undefined;
  for (;;) {
    const page = await readPage(after);
    for (const entry of page.entries) {
      if (count.checked >= refreshBatchLimit) return count;
      count.checked++;
      try {
        if (await refresh(entry)) count.verified++;
      } catch (error) {
        // Gone meanwhile: nothing to refresh. Anything else (SES throttling) waits for the next run.
        if (error instanceof RecordNotFound) continue;
        count.failed++;
        log.warn('identity refresh failed', { kind, entry: entry.position, ...describeError(error) });
      }
    }
    if (page.last || page.entries.length === 0) return count;
    after = page.entries[page.entries.length - 1]?.position;
  }
}

/**
 * Refresh every young pending domain (one that becomes verified verifies the account's senders on it
 * and releases their waiting sends) and every young unverified sender (one SES has verified for its
 * account is verified, releasing its waiting sends).
 */
export async function refreshPendingIdentities(now: Date = currentTime()): Promise<RefreshRun> {
  const domains = await refreshEach(
    'sender-domain',
    (after) => pendingDomainsPage(hoursBefore(now, pendingDomainHours), after, pageSize),
    async (entry) => (await refreshSenderDomain(entry.accountId, entry.domain)).status === 'verified',
  );
  const senders = await refreshEach(
    'sender',
    (after) => pendingSendersPage(hoursBefore(now, pendingSenderHours), after, pageSize),
    (entry) => refreshSenderVerification(entry.accountId, entry.senderId),
  );
  return { domains, senders };
}
