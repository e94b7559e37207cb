// The container's pace of SES calls: one rate limiter shared by every delivery in it, the spacing of
// the calls themselves, and a throttled call's retries with backoff (every sender backs off together).
import { MailSendingPausedError, MailThrottledError, sendMail, type OutgoingMail } from '../mail/mailer';
import { sendingSettings } from './settings';
import { backoffDelay, tokenBucket, type TokenBucket } from './throttle';

let bucket: TokenBucket | undefined;

/** The container's rate limiter, shared by every delivery in it. */
export function sendBucket(): TokenBucket {
  // A burst of 1: no one-second window ever holds more than the configured rate.
  bucket ??= tokenBucket(sendingSettings().maxSendRate, 1);
  return bucket;
}

/** When the container's next SES call may start: the rate's interval after the last one. */
let nextStart = 0;

/**
 * Hold a claimed recipient's SES call until the rate's interval after the previous one. Turns are
 * spaced when taken, but claims made in shared transactions answer in bunches, and SES counts the
 * calls: without this, a second could hold more than the rate. The wait is at most a few intervals,
 * so a killed run still leaves no more claims of unknown outcome than it had mails in flight.
 */
export async function spacedStart(): Promise<void> {
  const now = Date.now();
  const at = Math.max(now, nextStart);
  nextStart = at + 1000 / sendingSettings().maxSendRate;
  if (at - now >= 1) await sleep(at - now);
}

/** Forget the rate limiter (tests change the rate). */
export function resetSendBucket(): void {
  bucket = undefined;
  nextStart = 0;
}

/** In-process retries of one throttled mail before it is handed back to the queue. */
const throttleRetries = 3;

const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

export type Attempt = { result: 'sent' } | { result: 'deferred' } | { result: 'refused'; error: unknown } | { result: 'uncertain'; error: unknown };

/** SES answered with a client error: it definitely did not take the message. */
function isRefusal(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}

/**
 * Send one mail whose turn at the rate limiter has come (and whose recipient is claimed); a throttled
 * send is retried, each retry with a turn of its own, while `mayStart` allows.
 */
export async function sendWithBackoff(mail: OutgoingMail, mayStart: () => boolean): Promise<Attempt> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sendMail(mail);
      return { result: 'sent' };
    } catch (error) {
      if (error instanceof MailSendingPausedError) return { result: 'deferred' };
      if (!(error instanceof MailThrottledError)) return isRefusal(error) ? { result: 'refused', error } : { result: 'uncertain', error };
      // The daily quota does not recover in seconds; the rate does.
      if (error.reason === 'daily-quota' || attempt > throttleRetries) return { result: 'deferred' };
      const delay = backoffDelay(attempt);
      // Every sender in the container backs off, not only this one.
      sendBucket().pause(delay);
      await sleep(delay);
      if (!(await sendBucket().acquire(mayStart))) return { result: 'deferred' };
    }
  }
}
