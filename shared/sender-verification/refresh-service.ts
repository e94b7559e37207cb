// The periodic check of what waits on SES: domains still pending (their DKIM records not yet found)
// and senders whose address was registered and is not verified yet. It reads only the pending index
// (gsi1, see keys.ts), never the table or every account, and only the waits SES may still settle:
// SES looks for a domain's DKIM records for 72 hours, and its verification link lives 24 hours. Each
// look is a call of SES's control plane, paced for the whole stage (shared/rate-limits/ses-control.ts),
// so a run looks at a share of the waits and stops before its time is up; a cursor per kind makes the
// next run go on after the last entry looked at, round and round, so every wait has its turn. Senders
// whose link has expired unclicked lose the address identity made for them (SES allows 10,000 per
// region), and the identities in use are counted against that quota.
import { currentTime } from '../time';
import { describeError, log } from '../log';
import { countMetric } from '../metrics';
import { ControlPlaneBusyError } from '../rate-limits/ses-control';
import { RecordNotFound } from '../table/errors';
import { expiredSendersPage, pendingSendersPage } from '../senders/pending-index';
import { expireSenderVerification, refreshSenderVerification } from './address-service';
import { pendingDomainsPage } from '../identities/domain-repository';
import { refreshSenderDomain } from './domain-service';
import { domainProofHours } from '../identities/identities';
import { identitiesInUse, identityQuotaWarningShare, sesIdentityQuota } from '../identities/identity-count';
import type { PendingKind } from '../identities/keys';
import { refreshCursor, saveRefreshCursor } from '../identities/refresh-cursor';

/** Minutes between two runs of the check (an EventBridge rule deployed, the local scheduler locally). */
export const identityRefreshIntervalMinutes = 15;

/** How far back the check looks: a little past the time SES gives each kind. */
export const pendingDomainHours = domainProofHours;
export const pendingSenderHours = 25;

/**
 * Entries of each kind one run looks at, at most: at about one control-plane call a second for the
 * whole stage, shared with dispatches and the API, a run takes at most a few minutes of every 15.
 */
export const refreshBatchLimit = 100;

/** Expired senders one run clears at most (up to two calls each: a last look, the deletion). */
export const expiryBatchLimit = 50;

const pageSize = 50;

export interface RefreshCount {
  checked: number;
  verified: number;
  failed: number;
}

export interface ExpiryCount {
  checked: number;
  /** Clicked at the last minute: verified after all. */
  verified: number;
  /** Their address identity deleted and off the index. */
  removed: number;
  failed: number;
}

export interface RefreshRun {
  domains: RefreshCount;
  senders: RefreshCount;
  expired: ExpiryCount;
  /** SES identities in the region, when counted this run. */
  identitiesInUse?: number;
  /** Whether every wait had its look this run (false: the next run goes on from the cursors). */
  complete: boolean;
}

export interface RefreshOptions {
  now?: Date;
  /** Asked before each look: false once no new call may start (the run's time is down to its reserve). */
  keepGoing?: () => boolean;
}

const hoursBefore = (now: Date, hours: number): string => new Date(now.getTime() - hours * 3_600_000).toISOString();

const throttleNames = new Set(['TooManyRequestsException', 'ThrottlingException']);

/** SES, or the stage's own pace, says no more calls now: the run stops, and the entry waits for the next. */
function throttled(error: unknown): boolean {
  return error instanceof ControlPlaneBusyError || throttleNames.has((error as { name?: string } | null)?.name ?? '');
}

interface Lap<Entry extends { position: string }> {
  kind: PendingKind;
  /** Entries before this position are no longer young enough for SES to settle. */
  since: string;
  readPage(after: string | undefined): Promise<{ entries: Entry[]; last: boolean }>;
  refresh(entry: Entry): Promise<boolean>;
}

/**
 * Look at the young entries of one kind from just after the cursor to the index's end, then from its
 * beginning up to the cursor, while the run may go on. One entry's failure is logged and the rest go
 * on; throttling stops the lap before that entry. The cursor is saved where the lap stopped.
 */
async function refreshLap<Entry extends { position: string }>(lap: Lap<Entry>, keepGoing: () => boolean): Promise<RefreshCount & { finished: boolean }> {
  const count: RefreshCount = { checked: 0, verified: 0, failed: 0 };
  const saved = await refreshCursor(lap.kind);
  // A cursor among the waits too old to look at starts the lap at the beginning.
  const from = saved !== undefined && saved > lap.since ? saved : undefined;
  let wrapped = from === undefined;
  let readAfter = from;
  let lastLooked = from;
  const finish = async (finished: boolean) => {
    await saveRefreshCursor(lap.kind, finished && from === undefined ? undefined : lastLooked);
    return { ...count, finished };
  };
  for (;;) {
    const page = await lap.readPage(readAfter);
    for (const entry of page.entries) {
      if (wrapped && from !== undefined && entry.position > from) return finish(true);
      if (count.checked >= refreshBatchLimit || !keepGoing()) return finish(false);
      count.checked++;
      try {
        if (await lap.refresh(entry)) count.verified++;
      } catch (error) {
        // Gone meanwhile: nothing to refresh.
        if (!(error instanceof RecordNotFound)) {
          count.failed++;
          log.warn('identity refresh failed', { kind: lap.kind, entry: entry.position, ...describeError(error) });
          if (throttled(error)) return finish(false);
        }
      }
      lastLooked = entry.position;
    }
    if (page.last || page.entries.length === 0) {
      if (wrapped) return finish(true);
      wrapped = true;
      readAfter = undefined;
      continue;
    }
    readAfter = page.entries[page.entries.length - 1]?.position;
  }
}

/** Clear the senders whose verification link expired unclicked, oldest first (each cleared one leaves the index). */
async function expireUnclickedSenders(before: string, keepGoing: () => boolean): Promise<ExpiryCount & { finished: boolean }> {
  const count: ExpiryCount = { checked: 0, verified: 0, removed: 0, failed: 0 };
  let after: string | undefined;
  for (;;) {
    const page = await expiredSendersPage(before, after, pageSize);
    for (const entry of page.entries) {
      if (count.checked >= expiryBatchLimit || !keepGoing()) return { ...count, finished: false };
      count.checked++;
      try {
        const outcome = await expireSenderVerification(entry.accountId, entry.senderId, entry.position);
        if (outcome === 'verified') count.verified++;
        if (outcome === 'removed') count.removed++;
      } catch (error) {
        count.failed++;
        log.warn('expired sender verification could not be cleared', { entry: entry.position, ...describeError(error) });
        if (throttled(error)) return { ...count, finished: false };
      }
      after = entry.position;
    }
    if (page.last) return { ...count, finished: true };
    after = page.entries[page.entries.length - 1]?.position ?? after;
  }
}

/** Count the region's identities into the SesIdentitiesInUse metric, warning at 80% of SES's quota; undefined when SES could not answer. */
async function countIdentities(): Promise<number | undefined> {
  try {
    const inUse = await identitiesInUse();
    countMetric('SesIdentitiesInUse', inUse);
    if (inUse >= identityQuotaWarningShare * sesIdentityQuota) {
      log.warn('SES identities of the region near their quota', { identitiesInUse: inUse, quota: sesIdentityQuota });
    }
    return inUse;
  } catch (error) {
    log.warn('SES identities could not be counted', describeError(error));
    return undefined;
  }
}

/**
 * Refresh the young pending domains (one that becomes verified verifies the account's senders on it
 * and releases their waiting sends) and the young unverified senders (one SES has verified for its
 * account is verified, releasing its waiting sends), clear the senders whose link expired, and count
 * the identities in use, while `keepGoing` allows.
 */
export async function refreshPendingIdentities({ now = currentTime(), keepGoing = () => true }: RefreshOptions = {}): Promise<RefreshRun> {
  const domains = await refreshLap(
    {
      kind: 'sender-domain',
      since: hoursBefore(now, pendingDomainHours),
      readPage: (after) => pendingDomainsPage(hoursBefore(now, pendingDomainHours), after, pageSize),
      refresh: async (entry) => (await refreshSenderDomain(entry.accountId, entry.domain)).status === 'verified',
    },
    keepGoing,
  );
  const senders = await refreshLap(
    {
      kind: 'sender',
      since: hoursBefore(now, pendingSenderHours),
      readPage: (after) => pendingSendersPage(hoursBefore(now, pendingSenderHours), after, pageSize),
      refresh: (entry) => refreshSenderVerification(entry.accountId, entry.senderId),
    },
    keepGoing,
  );
  const expired = await expireUnclickedSenders(hoursBefore(now, pendingSenderHours), keepGoing);
  const inUse = keepGoing() ? await countIdentities() : undefined;
  const { finished: domainsDone, ...domainCount } = domains;
  const { finished: sendersDone, ...senderCount } = senders;
  const { finished: expiredDone, ...expiredCount } = expired;
  return {
    domains: domainCount,
    senders: senderCount,
    expired: expiredCount,
    ...(inUse === undefined ? {} : { identitiesInUse: inUse }),
    complete: domainsDone && sendersDone && expiredDone && inUse !== undefined,
  };
}
