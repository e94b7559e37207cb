// The stall watchdog: finds running sends that have not progressed (no page fanned out, no batch
// settled) for longer than SEND_STALL_MINUTES, from the stall watch index (one Query per shard, never a
// Scan; an entry that comes up while its send progressed since is moved on to that progress, once a
// threshold), and resumes each from its stored cursor through its dispatch job, saying so in its details.
// A send that does not move after SEND_STALL_MAX_RESUMES resumes, or whose queued batches are never
// confirmed, ends at status 4 with the reason; a metric alarms on both stalls and failures.
import { cancelSendDispatch } from '../send-gates/dispatch-job';
import { config } from '../config';
import { describeError, log } from '../log';
import { countMetric } from '../metrics';
import { holdSend } from '../send-gates/hold-service';
import { getDispatchState, getSendingSingleSend } from '../single-sends/progress';
import { type DispatchState } from '../single-sends/dispatch-state';
import { singleSendStatus } from '../single-sends/record';
import { failSingleSend, moveWatched, recordStallVisit, restartSilence, silentSends, unwatch, type SilentSend } from '../single-sends/stall-watch';
import { getAccountTenant } from '../tenants/repository';
import { recheckTenantStatus } from '../tenants/tenant-status-port';
import { tenantPausedMessage, tenantPausedReason, tenantRecheckMs } from '../send-gates/tenant-gate-service';
import { reputationPauseReason } from '../single-sends/record';
import { currentTime } from '../time';

/**
 * A send whose every recipient is queued waits for its batches to settle; the delivery queue
 * redelivers a batch for at most 3 receives x 30 minutes of visibility, so a batch unconfirmed after
 * two hours is lost (a deliverer died on its last receive) and the send is ended rather than left running.
 */
export const unconfirmedDeliveryLimitMs = 2 * 60 * 60_000;

/** The waits the watchdog itself sets; any other is a hold with its own retry time. */
const watchdogReasons = new Set(['resuming', 'delivering']);

export type WatchOutcome =
  /** Its dispatch job was booked now: it continues from its stored cursor. */
  | 'resumed'
  /** Everything is queued: it waits for its deliveries, and says so. */
  | 'waiting'
  /** Ended at status 4. */
  | 'failed'
  /** Held by someone else until a later time, or it moved meanwhile: nothing done. */
  | 'left'
  /** Heard of within the threshold (its progress is not written to the watch): its entry moved on to then. */
  | 'progressed'
  /** Completed, failed or deleted already: taken off the watch. */
  | 'unwatched';

export interface WatchdogRun {
  silent: number;
  outcomes: Partial<Record<WatchOutcome | 'error', number>>;
}

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

async function endSend(entry: SilentSend, reason: string, message: string): Promise<WatchOutcome> {
  if (!(await failSingleSend(entry.accountId, entry.utr, { reason, message }))) return 'left';
  // A resume job still booked would find a failed send and do nothing; cancelled for tidiness.
  await cancelSendDispatch(entry.accountId, entry.utr);
  countMetric('SendsFailed');
  log.error('single send stopped: it could not be resumed', { accountId: entry.accountId, utr: entry.utr, reason, message });
  return 'failed';
}

/** All queued, some batches unconfirmed: wait (saying so), or end it once they must be lost. */
async function awaitDeliveries(entry: SilentSend, state: DispatchState, now: Date): Promise<WatchOutcome> {
  const open = state.fannedBatches - state.settledBatches;
  const silentMs = now.getTime() - Date.parse(state.progressAt);
  if (silentMs >= unconfirmedDeliveryLimitMs) {
    return endSend(
      entry,
      'deliveries-unconfirmed',
      `${open} of ${state.fannedBatches} batches of recipients were never confirmed delivered (none since ${state.progressAt}); sending has stopped.`,
    );
  }
  if (!(await recordStallVisit(entry, state.progressAt, state.stallResumes))) return 'left';
  await holdSend(entry.accountId, entry.utr, {
    reason: 'delivering',
    message: `Every recipient is queued; ${open} of ${state.fannedBatches} batches have not been confirmed delivered for ${minutes(silentMs)} minutes.`,
    retryAt: null,
    since: new Date(state.progressAt),
  });
  countMetric('SendsStalled');
  log.warn('single send waits for its deliveries', { accountId: entry.accountId, utr: entry.utr, unconfirmedBatches: open, since: state.progressAt });
  return 'waiting';
}

/** Fanning out stopped: resume it from its cursor, or end it after the last resume did not help. */
async function resume(entry: SilentSend, state: DispatchState, now: Date): Promise<WatchOutcome> {
  const { sendStallMaxResumes } = config();
  if (state.stallResumes >= sendStallMaxResumes) {
    return endSend(
      entry,
      'dispatch-failed',
      `Sending stopped at ${state.progressAt} and did not move after ${state.stallResumes} resumes; ${state.fannedRecipients} recipients were queued, the rest were not reached.`,
    );
  }
  const attempt = state.stallResumes + 1;
  if (!(await recordStallVisit(entry, state.progressAt, attempt))) return 'left';
  await holdSend(entry.accountId, entry.utr, {
    reason: 'resuming',
    message: `No progress since ${state.progressAt}; resuming from where it stopped (attempt ${attempt} of ${sendStallMaxResumes}).`,
    retryAt: now,
    since: new Date(state.progressAt),
  });
  countMetric('SendsStalled');
  log.warn('stalled single send resumed', { accountId: entry.accountId, utr: entry.utr, attempt, since: state.progressAt });
  return 'resumed';
}

/**
 * The account's SES tenant is paused: SES holds the send's mail (its batches come back deferred), which
 * is not a stall. It waits, saying why, and its silence starts again, so it is never ended for it.
 */
async function waitForTenant(entry: SilentSend, state: DispatchState, tenant: string, now: Date): Promise<WatchOutcome> {
  if (!(await restartSilence(entry, state.progressAt))) return 'left';
  await holdSend(entry.accountId, entry.utr, { reason: tenantPausedReason, message: tenantPausedMessage(tenant), retryAt: new Date(now.getTime() + tenantRecheckMs) });
  log.warn('single send waits for its account\'s SES tenant', { accountId: entry.accountId, utr: entry.utr, tenant });
  return 'waiting';
}

/** When the send was last heard of: its last page or settled batch, or the end of its A/B test's wait. */
function lastHeardOf(state: DispatchState): number {
  const progress = Date.parse(state.progressAt) || 0;
  const decideAt = state.ab?.phase === 'waiting' && state.ab.decideAt !== null ? Date.parse(state.ab.decideAt) || 0 : 0;
  return Math.max(progress, decideAt);
}

async function visit(entry: SilentSend, now: Date, silentBefore: Date): Promise<WatchOutcome> {
  const progress = await getDispatchState(entry.accountId, entry.utr);
  // Heard of within the threshold: only its entry lags (pages and settled batches do not move it).
  if (progress && progress.completedAt === null) {
    const heardOf = lastHeardOf(progress);
    if (heardOf >= silentBefore.getTime()) return (await moveWatched(entry, new Date(heardOf))) ? 'progressed' : 'left';
  }
  const send = await getSendingSingleSend(entry.accountId, entry.utr);
  const state = send?.status === singleSendStatus.running ? progress : undefined;
  // A send paused for its reputation waits for its owner, not for a stalled run (its pause took it off the watch).
  if (!send || !state || state.completedAt !== null || send.waiting?.reason === reputationPauseReason) {
    await unwatch(entry.accountId, entry.utr);
    return 'unwatched';
  }
  // SES may have paused the account's tenant mid-send (its batches then come back deferred): ask it.
  const tenant = await getAccountTenant(entry.accountId);
  if (tenant && ((await recheckTenantStatus(entry.accountId, tenant.name)) ?? tenant.status) === 'paused') return waitForTenant(entry, state, tenant.name, now);
  const held = send.waiting && !watchdogReasons.has(send.waiting.reason) && send.waiting.retry_at !== null ? Date.parse(send.waiting.retry_at) : undefined;
  // Held on purpose until a later time: not a stall until a threshold after that time has passed.
  if (held !== undefined && held + config().sendStallMs > now.getTime()) return 'left';
  // An A/B test's share fanned out waits for its batches as a send fanned out whole does.
  const queued = state.done || state.ab?.phase === 'waiting';
  if (queued && state.settledBatches < state.fannedBatches) return awaitDeliveries(entry, state, now);
  // Still fanning out, or done and settled but never completed (a crash in between): the dispatcher does both.
  return resume(entry, state, now);
}

/** One watchdog run over every send silent for longer than the threshold. */
export async function watchStalledSends(): Promise<WatchdogRun> {
  const now = currentTime();
  const silentBefore = new Date(now.getTime() - config().sendStallMs);
  const silent = await silentSends(silentBefore);
  const run: WatchdogRun = { silent: silent.length, outcomes: {} };
  for (const entry of silent) {
    let outcome: WatchOutcome | 'error';
    try {
      outcome = await visit(entry, now, silentBefore);
    } catch (error) {
      // One send's trouble does not stop the others; it is looked at again on the next run.
      log.error('stalled send could not be handled', { accountId: entry.accountId, utr: entry.utr, ...describeError(error) });
      outcome = 'error';
    }
    run.outcomes[outcome] = (run.outcomes[outcome] ?? 0) + 1;
  }
  return run;
}
