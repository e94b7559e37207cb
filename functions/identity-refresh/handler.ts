// The periodic check of sending identities: every 15 minutes (an EventBridge rule when deployed, the
// local scheduler's recurring run locally) it refreshes the sender domains still pending and the
// senders still waiting for SES's verification, verifying those SES has verified and releasing what
// waited for them. A function of its own: it needs SES's identity calls, which the send watchdog does not.
import { eventHandler } from '../../shared/event-entry';
import { refreshPendingIdentities, type RefreshRun } from '../../shared/identities/refresh-service';
import { describeError, log } from '../../shared/log';

async function refresh(): Promise<RefreshRun> {
  try {
    const run = await refreshPendingIdentities();
    if (run.domains.checked + run.senders.checked > 0) log.info('identity refresh run', { ...run });
    return run;
  } catch (error) {
    log.error('identity refresh run failed', describeError(error));
    throw error;
  }
}

export const handler = eventHandler(refresh);
