// The periodic check of sending identities: every 15 minutes (an EventBridge rule when deployed, the
// local scheduler's recurring run locally) it refreshes the sender domains still pending and the
// senders still waiting for SES's verification, verifying those SES has verified and releasing what
// waited for them, clears the address identities whose verification mail went unclicked, and counts
// the region's identities. A function of its own: it needs SES's identity calls, which the send
// watchdog does not. It stops looking while enough of its time is left for the call under way.
import { remainingOf, timeLeft } from '../../shared/time-left';
import type { Context } from 'aws-lambda';
import { eventHandler } from '../../shared/event-entry';
import { refreshPendingIdentities, type RefreshRun } from '../../shared/sender-verification/refresh-service';
import { describeError, log } from '../../shared/log';

/**
 * Time kept back when the run stops looking: a call waits at most 5 s for its control-plane slot, and
 * SES's answer (with the SDK's retries) comes within seconds more.
 */
export const refreshReserveMs = 20_000;

async function refresh(_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<RefreshRun> {
  const keepGoing = timeLeft(remainingOf(context), { reserveMs: refreshReserveMs });
  try {
    const run = await refreshPendingIdentities({ keepGoing });
    if (run.domains.checked + run.senders.checked + run.expired.checked > 0 || !run.complete) log.info('identity refresh run', { ...run });
    return run;
  } catch (error) {
    log.error('identity refresh run failed', describeError(error));
    throw error;
  }
}

export const handler = eventHandler(refresh);
