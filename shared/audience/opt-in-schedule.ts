// When an account's confirmation mailer runs: one scheduler job per account (the same name again
// moves it), fired at once when contacts become owed a mail or their sender is verified, and at the
// end of the hour when the account's confirmation budget is spent.
import { describeError, log } from '../log';
import { scheduleAt } from '../scheduling/scheduler';
import { currentTime } from '../time';

export function optInMailJobName(accountId: number): string {
  return `opt-in-mail-${accountId}`;
}

/** Book the account's mailer at `at` (now by default). */
export async function mailOptInsAt(accountId: number, at: Date = currentTime()): Promise<void> {
  await scheduleAt({ name: optInMailJobName(accountId), at, target: 'opt-in-mail', payload: { accountId } });
}

/**
 * Book the mailer now after contacts became owed a mail: a failure is logged, never answered, since
 * the contacts are written; their mails wait, owed, for the account's next booking.
 */
export async function mailOptInsSoon(accountId: number): Promise<void> {
  try {
    await mailOptInsAt(accountId);
  } catch (error) {
    log.error('confirmation mailer could not be booked; the mails wait for its next run', { accountId, ...describeError(error) });
  }
}
