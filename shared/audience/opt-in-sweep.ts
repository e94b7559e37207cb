// The send watchdog's sweep of owed confirmation mails: books the mailer of each account the index
// (contacts/opt-in-due.ts) shows due, that is one whose last booking was lost or whose run never
// reported, and puts the account off until a run has had time to report. An account whose mails all
// wait for their sender, or for the next hour's budget, is not due, so it is not booked on every tick.
import { dueOptInAccounts, putOffOptInDue } from '../contacts/opt-in-due';
import { describeError, log } from '../log';
import { currentTime } from '../time';
import { mailOptInsAt, optInRunLeaseMs } from './opt-in-schedule';

export interface OptInSweep {
  /** Accounts found due. */
  due: number;
  /** Mailers booked. */
  booked: number;
  /** Accounts not booked (the scheduler or the table failed): they stay due for the next sweep. */
  failed: number;
}

/** Book the mailer of every account due now (at most 100 per shard; the rest at the next sweep). */
export async function bookOwedOptInMails(): Promise<OptInSweep> {
  const now = currentTime();
  const due = await dueOptInAccounts(now);
  const sweep: OptInSweep = { due: due.length, booked: 0, failed: 0 };
  for (const account of due) {
    try {
      await mailOptInsAt(account.accountId, now);
      // Another run or mark moved it meanwhile: that one decides when it is due.
      await putOffOptInDue(account, new Date(now.getTime() + optInRunLeaseMs));
      sweep.booked++;
    } catch (error) {
      // Its booking (or the write after it) failed: it stays due, for the next sweep.
      log.error('owed confirmation mails not swept; the account stays due', { accountId: account.accountId, ...describeError(error) });
      sweep.failed++;
    }
  }
  return sweep;
}
