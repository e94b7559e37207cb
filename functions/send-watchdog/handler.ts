// The scheduler's target that keeps sends from stalling silently: every few minutes (a recurring
// schedule when deployed, the local scheduler's recurring run locally) it resumes running sends that
// stopped progressing and ends, visibly, those that cannot be resumed.
import { eventHandler } from '../../shared/event-entry';
import { describeError, log } from '../../shared/log';
import { watchStalledSends, type WatchdogRun } from '../../shared/single-send-runs/stall-watchdog';

async function watch(): Promise<WatchdogRun> {
  try {
    const run = await watchStalledSends();
    if (run.silent > 0) log.info('send watchdog run', { silent: run.silent, ...run.outcomes });
    return run;
  } catch (error) {
    log.error('send watchdog run failed', describeError(error));
    throw error;
  }
}

export const handler = eventHandler(watch);
