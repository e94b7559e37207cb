// When an account's confirmation mailer runs: one scheduler job per account (the same name again
// moves it), fired at once when contacts become owed a mail or their sender is verified, and at the
// end of the hour when the account's confirmation budget is spent. Any of those bookings can fail, so
// the account is also on the index of accounts owing mails (contacts/opt-in-due.ts), due a little
// after each booking; the send watchdog books the mailer of an account still due (opt-in-sweep.ts).
import { beginOptInRun, clearOptInDue, markOptInMailsOwed, setOptInDue, type OptInDueEntry } from '../contacts/opt-in-due';
import { describeError, log } from '../log';
import { scheduleAt } from '../scheduling/scheduler';
import { currentTime } from '../time';

/** How long a booked run has to start before the watchdog books the account again. */
export const bookingGraceMs = 2 * 60_000;

/** How long a run keeps its account off the watchdog's list: longer than the mailer runs (5 minutes). */
export const optInRunLeaseMs = 10 * 60_000;

/**
 * How long after mails were last marked owed a run that found nothing owed keeps the account listed:
 * an account is marked before its contacts are written, so a run that starts within this time may
 * have missed contacts still being written. Longer than any function runs (Lambda stops one at 15 minutes).
 */
export const markWritesWithinMs = 15 * 60_000;

export function optInMailJobName(accountId: number): string {
  return `opt-in-mail-${accountId}`;
}

const inMs = (ms: number, from: Date = currentTime()) => new Date(from.getTime() + ms);

/** Book the account's mailer at `at` (now by default). */
export async function mailOptInsAt(accountId: number, at: Date = currentTime()): Promise<void> {
  await scheduleAt({ name: optInMailJobName(accountId), at, target: 'opt-in-mail', payload: { accountId } });
}

/**
 * Contacts owed a mail are about to be written: the account is listed, due unless its mailer runs
 * first. Before the write, so that no contact is written owed while its account is not listed.
 */
export async function expectOptInMails(accountId: number): Promise<void> {
  await markOptInMailsOwed(accountId, inMs(bookingGraceMs));
}

/**
 * Book the mailer now after contacts became owed a mail: a failure is logged, never answered, since
 * the contacts are written; the account is listed, so the watchdog books the mailer instead.
 */
export async function mailOptInsSoon(accountId: number): Promise<void> {
  try {
    await mailOptInsAt(accountId);
  } catch (error) {
    log.error('confirmation mailer could not be booked; the watchdog books it', { accountId, ...describeError(error) });
  }
}

/**
 * Mails already owed may go now (their opt-in sender was verified, or their type names another): an
 * account owing any is listed again, due unless its mailer runs first, and the mailer is booked.
 */
export async function wakeOptInMails(accountId: number): Promise<void> {
  await markOptInMailsOwed(accountId, inMs(bookingGraceMs), { onlyIfPresent: true });
  await mailOptInsSoon(accountId);
}

/** A run's view of its account's entry, from its start. */
export interface OptInRunWatch {
  entry: OptInDueEntry;
  startedAt: Date;
}

/** A run starts: it holds its account off the watchdog's list while it goes on. */
export async function startOptInRun(accountId: number): Promise<OptInRunWatch> {
  const startedAt = currentTime();
  return { entry: await beginOptInRun(accountId, inMs(optInRunLeaseMs, startedAt)), startedAt };
}

/** What a run leaves owed: nothing, mails that wait for their sender, or mails for a run at `at`. */
export type OptInRunLeft = { owed: 'nothing' } | { owed: 'waiting-for-sender' } | { owed: 'later'; at: Date };

/**
 * A run ends: the account leaves the index when nothing is owed (once no write it was marked for can
 * still be under way), is taken off the watchdog's list while its mails wait for their sender (the
 * sender's verification wakes it), or is due a little after the run it books for the rest. A mark
 * made during the run leaves the entry as the mark made it: the run may not have seen those mails.
 */
export async function endOptInRun(accountId: number, watch: OptInRunWatch, left: OptInRunLeft): Promise<void> {
  const { entry, startedAt } = watch;
  if (left.owed === 'later') {
    await setOptInDue(accountId, entry, inMs(bookingGraceMs, left.at), startedAt);
    try {
      await mailOptInsAt(accountId, left.at);
    } catch (error) {
      log.error('confirmation mailer could not book its next run; the watchdog books it', { accountId, at: left.at.toISOString(), ...describeError(error) });
    }
  } else if (left.owed === 'waiting-for-sender') {
    await setOptInDue(accountId, entry, null, startedAt);
  } else if (entry.markedAt === null || entry.markedAt < startedAt.getTime() - markWritesWithinMs) {
    await clearOptInDue(accountId, entry);
  } else {
    // Marked too recently to be sure the run saw every mail: one more run once the writes are over.
    await setOptInDue(accountId, entry, inMs(markWritesWithinMs + bookingGraceMs, new Date(entry.markedAt)), startedAt);
  }
}
