// Delivers one send (or automation step) to a list of recipients: the one code path for single sends
// and automations. Per recipient: the suppression check at send time, rendering, the rate limit, the
// ledger claim, SES. The claim is taken only once the recipient's turn has come, right before SES, so
// a delivery stopped (its time up) or killed while waiting holds no claim on anyone it did not mail.
// Throttling is retried with backoff and, if it persists, handed back unsent, as is everyone not
// reached when the caller's time runs out.
import { config } from '../config';
import { bouncedAmong } from '../suppressions/bounces';
import { suppressedAmong } from '../suppressions/repository';
import { describeError, log } from '../log';
import { oneClickUnsubscribeUrl, openPixelUrl, preferencesUrl, recipientToken } from './links';
import { MailSendingPausedError, MailThrottledError, sendMail, type OutgoingMail } from '../mail/mailer';
import { countMetric } from '../metrics';
import type { DeliveryRecipient } from './delivery-message';
import { claimedAmong, claimRecipient, markRecipientUncertain, releaseRecipient, type LedgerClaim } from './ledger';
import { renderMail } from './render';
import type { SendContent } from './send-content';
import { encodeSendRef, sendRefTag, type SendRef } from './send-ref';
import { sendingSettings } from './settings';
import { addSentCounts } from './statistics';
import { backoffDelay, tokenBucket, type TokenBucket } from './throttle';

export interface DeliveryOptions {
  /**
   * Asked before each recipient's send (when its turn at the rate limiter comes, and again after the
   * wait): false once no new mail may start, e.g. the Lambda's time is nearly up. Everyone not yet
   * handed to SES then comes back in `deferred`, unclaimed. Always true when left out.
   */
  keepGoing?: () => boolean;
}

export interface DeliveryOutcome {
  /** Handed to SES; counted as triggered (and, locally, delivered) in one update at the end. */
  sent: number;
  /** Suppressed at send time, or already in the ledger (mailed through another entry or an earlier attempt). */
  skipped: number;
  /** SES refused them (or they could not be rendered or claimed): not mailed, claims released, may be tried again. */
  failed: DeliveryRecipient[];
  /** SES throttled or paused sending, or the caller's time ran out: not mailed, never counted, unclaimed, to be tried again later. */
  deferred: DeliveryRecipient[];
  /**
   * The call to SES ended without an answer (network error, server fault): the mail may have gone.
   * Their claims stay, so they are never mailed again: at most once wins over at least once.
   */
  uncertain: number;
}

let bucket: TokenBucket | undefined;

/** The container's rate limiter, shared by every delivery in it. */
function sendBucket(): TokenBucket {
  // A burst of 1: no one-second window ever holds more than the configured rate.
  bucket ??= tokenBucket(sendingSettings().maxSendRate, 1);
  return bucket;
}

/** Forget the rate limiter (tests change the rate). */
export function resetSendBucket(): void {
  bucket = undefined;
}

/** In-process retries of one throttled mail before it is handed back to the queue. */
const throttleRetries = 3;

const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

type Attempt = { result: 'sent' } | { result: 'deferred' } | { result: 'refused'; error: unknown } | { result: 'uncertain'; error: unknown };

/** SES answered with a client error: it definitely did not take the message. */
function isRefusal(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}

/** The recipient's mail, ready for SES. */
export function recipientMail(ref: SendRef, content: SendContent, recipient: DeliveryRecipient): OutgoingMail {
  const token = recipientToken(ref, recipient.email, content.unsubscribeGroupId);
  const mail = renderMail({
    designHtml: content.designHtml,
    subject: content.subject,
    preheader: content.preheader,
    fields: { ...recipient.fields, email: recipient.fields.email ?? recipient.email },
    senderName: content.senderName,
    senderAddress: content.senderAddress,
    links: { preferences: preferencesUrl(token), oneClickUnsubscribe: oneClickUnsubscribeUrl(token), openPixel: openPixelUrl(token) },
  });
  return {
    from: content.senderName ? `${content.senderName} <${content.fromEmail}>` : content.fromEmail,
    to: [recipient.email],
    ...(content.replyTo ? { replyTo: [content.replyTo] } : {}),
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: mail.headers,
    configurationSetName: sendingSettings().configurationSetName,
    tags: [{ name: sendRefTag, value: encodeSendRef(ref) }],
  };
}

/**
 * Send one mail whose turn at the rate limiter has come (and whose recipient is claimed); a throttled
 * send is retried, each retry with a turn of its own, while `mayStart` allows.
 */
async function sendWithBackoff(mail: OutgoingMail, mayStart: () => boolean): Promise<Attempt> {
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

/** Count the batch's mails: failures are logged, never undo the sends (the ledger keeps them once). */
async function countSent(ref: SendRef, sent: number): Promise<void> {
  try {
    // The local sink accepts every mail; deployed, 'delivered' comes from SES delivery events.
    await addSentCounts(ref, { triggered: sent, delivered: config().runtime === 'local' ? sent : 0 });
  } catch (error) {
    log.error('sent mails could not be counted', { ref: encodeSendRef(ref), sent, ...describeError(error) });
  }
}

/** Recipients that may be mailed now: each address once, minus unsubscribes, the group, bounces and complaints. */
async function mailableNow(ref: SendRef, content: SendContent, recipients: readonly DeliveryRecipient[]): Promise<DeliveryRecipient[]> {
  const distinct = [...new Map(recipients.map((recipient) => [recipient.email.trim().toLowerCase(), recipient])).values()];
  const addresses = distinct.map((recipient) => recipient.email);
  const [unsubscribed, bounced] = await Promise.all([
    suppressedAmong(ref.accountId, addresses, content.unsubscribeGroupId),
    bouncedAmong(ref.accountId, addresses),
  ]);
  return distinct.filter((recipient) => {
    const address = recipient.email.trim().toLowerCase();
    return !unsubscribed.has(address) && !bounced.has(address);
  });
}

/**
 * Mail each recipient at most once for `ref`. Returns what happened to each; recipients in
 * `failed` and `deferred` hold no claim and may be delivered again.
 */
export async function deliverToRecipients(
  ref: SendRef,
  content: SendContent,
  recipients: readonly DeliveryRecipient[],
  options: DeliveryOptions = {},
): Promise<DeliveryOutcome> {
  const mailable = await mailableNow(ref, content, recipients);
  // Recipients the ledger already holds (a redelivered batch) are skipped without waiting for a turn.
  const inLedger = await claimedAmong(ref, mailable.map((recipient) => recipient.email));
  const queue = mailable.filter((recipient) => !inLedger.has(recipient.email.toLowerCase()));
  const outcome: DeliveryOutcome = { sent: 0, skipped: recipients.length - queue.length, failed: [], deferred: [], uncertain: 0 };
  const refText = encodeSendRef(ref);
  const keepGoing = options.keepGoing ?? (() => true);
  // Once SES throttles past the retries, or the caller's time is up, the rest is handed back unsent.
  let throttled = false;
  let stopped = false;
  const mayStart = () => {
    if (!throttled && !stopped && !keepGoing()) stopped = true;
    return !throttled && !stopped;
  };
  const deliverOne = async (recipient: DeliveryRecipient): Promise<void> => {
    if (!mayStart()) {
      outcome.deferred.push(recipient);
      return;
    }
    let mail: OutgoingMail;
    try {
      mail = recipientMail(ref, content, recipient);
    } catch (error) {
      log.warn('recipient could not be prepared', { ref: refText, ...describeError(error) });
      outcome.failed.push(recipient);
      return;
    }
    // Wait for the turn first, claim after: a wait cut short leaves no claim behind.
    if (!(await sendBucket().acquire(mayStart))) {
      outcome.deferred.push(recipient);
      return;
    }
    let claim: LedgerClaim | undefined;
    try {
      claim = await claimRecipient(ref, recipient.email);
    } catch (error) {
      log.warn('recipient could not be claimed', { ref: refText, ...describeError(error) });
      outcome.failed.push(recipient);
      return;
    }
    if (!claim) {
      outcome.skipped++;
      return;
    }
    const attempt = await sendWithBackoff(mail, mayStart);
    if (attempt.result === 'sent') {
      outcome.sent++;
      countMetric('MailsSent');
      return;
    }
    if (attempt.result === 'uncertain') {
      outcome.uncertain++;
      log.error('mail outcome unknown; the recipient is not mailed again', { ref: refText, ...describeError(attempt.error) });
      await markRecipientUncertain(claim).catch((error: unknown) => log.error('ledger claim could not be marked', { ref: refText, ...describeError(error) }));
      return;
    }
    if (attempt.result === 'deferred') {
      throttled = true;
      outcome.deferred.push(recipient);
    } else {
      log.warn('SES refused a mail', { ref: refText, ...describeError(attempt.error) });
      outcome.failed.push(recipient);
    }
    // A claim that cannot be released keeps the recipient out of this send: never risk a second mail.
    await releaseRecipient(claim).catch((error: unknown) => log.error('ledger claim could not be released', { ref: refText, ...describeError(error) }));
  };
  const workers = Array.from({ length: Math.min(sendingSettings().deliveryConcurrency, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await deliverOne(next);
  });
  await Promise.all(workers);
  await countSent(ref, outcome.sent);
  return outcome;
}
