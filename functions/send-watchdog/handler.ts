// The scheduler's target that keeps sends and owed confirmation mails from stalling silently: every
// few minutes (a recurring schedule when deployed, the local scheduler's recurring run locally) it
// resumes running sends that stopped progressing and ends, visibly, those that cannot be resumed, and
// books the confirmation mailer of accounts whose booking was lost.
import { bookOwedOptInMails, type OptInSweep } from '../../shared/audience/opt-in-sweep';
import { eventHandler } from '../../shared/event-entry';
import { describeError, log } from '../../shared/log';
import { watchStalledSends, type WatchdogRun } from '../../shared/single-send-runs/stall-watchdog';

async function watchSends(): Promise<WatchdogRun> {
  try {
    const run = await watchStalledSends();
    if (run.silent > 0) log.info('send watchdog run', { silent: run.silent, ...run.outcomes });
    return run;
  } catch (error) {
    log.error('send watchdog run failed', describeError(error));
    throw error;
  }
}

async function sweepOptInMails(): Promise<OptInSweep> {
  try {
    const sweep = await bookOwedOptInMails();
    if (sweep.due > 0) log.info('owed confirmation mails swept', { ...sweep });
    return sweep;
  } catch (error) {
    log.error('owed confirmation mails sweep failed', describeError(error));
    throw error;
  }
}

/** Both, independently: one failing does not keep the other from its run. */
async function watch(): Promise<{ sends: WatchdogRun; optInMails: OptInSweep }> {
  const [sends, optInMails] = await Promise.allSettled([watchSends(), sweepOptInMails()]);
  if (sends.status === 'rejected') throw sends.reason;
  if (optInMails.status === 'rejected') throw optInMails.reason;
  return { sends: sends.value, optInMails: optInMails.value };
}

export const handler = eventHandler(watch);
