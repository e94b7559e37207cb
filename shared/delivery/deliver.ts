// Delivers one send (or automation step) to a list of recipients: the one code path for single sends
// and automations. Per recipient: the suppression check at send time, rendering, the rate limit, the
// ledger claim, SES, and the claim marked sent or uncertain by SES's answer (or its absence). The claim is taken only once the recipient's turn has come, right before SES, so
// a delivery stopped (its time up) or killed while waiting holds no claim on anyone it did not mail.
// A mail SES took is marked sent in the same request as the worker's next claim (ledger/repository.ts), so
// each worker holds at most one claim whose outcome the ledger does not know. The claim carries the
// mail's subject: it is the contact activity's `sent` line, written as the mail goes.
// Throttling is retried with backoff and, if it persists, handed back unsent, as is everyone not
// reached when the caller's time runs out.
import { describeError, log } from '../log';
import type { OutgoingMail } from '../mail/mailer';
import { countMetric } from '../metrics';
import type { DeliveryRecipient } from './delivery-message';
import { outcomeForBatch } from '../ledger/batch-outcome';
import {
  claimRecipient,
  markRecipientSent,
  markRecipientUncertain,
  markSentAndClaim,
  readLedgerEntry,
  releaseRecipient,
  type LedgerClaim,
  type LedgerEntry,
  type LedgerHolder,
} from '../ledger/repository';
import type { SendContent } from './send-content';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';
import { sendingSettings } from './settings';
import { recipientMail } from './recipient-mail';
import { addSentCounts } from '../statistics/event-counts';
import { resetSendBucket as resetRateLimiter, sendBucket, sendWithBackoff, spacedStart } from './pacing';
import { ledgerAndSuppressions, normalized } from './look-ups';
import { lookUpWindowSize, recordRunPace, resetContainerPace, runPace } from './look-up-window';

/** Forget the container's rate limiter and the pace its runs kept (tests change the rate). */
export function resetSendBucket(): void {
  resetRateLimiter();
  resetContainerPace();
}

export interface DeliveryOptions {
  /**
   * Asked before each recipient's send (when its turn at the rate limiter comes, and again after the
   * wait): false once no new mail may start, e.g. the Lambda's time is nearly up. Everyone not yet
   * handed to SES then comes back in `deferred`, unclaimed. Always true when left out.
   */
  keepGoing?: () => boolean;
  /**
   * The single send's batch this delivery is a run of (and which receive of its queue message). Its
   * claims carry it, and the batch's entries left by earlier runs count in this outcome: the caller
   * counts the batch once, when it settles. Without it (automation steps) the mails are counted here.
   */
  batch?: LedgerHolder;
  /** No entry of this send is stored in the ledger's layout before (its dispatch began after the change): that layout is not read. */
  ledgerByAddress?: boolean;
  /**
   * The account's suppression state was complete when this send was dispatched (or this run began):
   * one state item per recipient answers for every list. Without it the lists are read one by one.
   */
  suppressionState?: boolean;
}

export interface DeliveryOutcome {
  /** Handed to SES (with a batch: by this run or an earlier run of the batch, as the ledger says). */
  sent: number;
  /** Suppressed at send time, pending its double opt-in, a repeated address, or held in the ledger by another batch or an earlier automation run. */
  skipped: number;
  /**
   * Those of `skipped` who were not mailed because they unsubscribed (globally or from the send's
   * group), as the look-up right before their mail found: an automation ends their enrolments.
   */
  unsubscribed: DeliveryRecipient[];
  /** SES refused them (or they could not be rendered or claimed): not mailed, claims released, may be tried again. */
  failed: DeliveryRecipient[];
  /**
   * SES throttled or paused sending, or the caller's time ran out: not mailed, never counted, not
   * claimed by this run, to be tried again later (one still held by a live run of the batch is settled by the next run).
   */
  deferred: DeliveryRecipient[];
  /**
   * The call to SES ended without an answer (network error, server fault, or a run that died between
   * its claim and SES's answer): the mail may have gone. Their entries stay, marked uncertain, so
   * they are never mailed again: at most once wins over at least once.
   */
  uncertain: number;
  /** SES throttled (or paused sending) past the retries: some of `deferred` wait on SES, not on the caller's time. */
  throttled: boolean;
}

/** How often a caller mailing a batch looks whether its send or automation was paused meanwhile. */
export const pauseWatchMs = 1_000;

/**
 * Look every second whether the send or automation being mailed was paused meanwhile (ses-events
 * pauses one whose bounces or complaints pass their limits): `paused()` turns true once `isPaused`
 * says so, and the caller stops mailing. A failed look changes nothing; the next one asks again.
 * `stop()` ends the watch.
 */
export function watchForPause(isPaused: () => Promise<boolean>): { paused: () => boolean; stop: () => void } {
  let paused = false;
  const timer = setInterval(() => void isPaused().then((now) => (paused ||= now), () => undefined), pauseWatchMs);
  return { paused: () => paused, stop: () => clearInterval(timer) };
}

/**
 * Count an automation step's mails as triggered ('delivered' comes from SES's delivery events, the
 * local sink's included): failures are logged, never undo the sends (the ledger keeps them once).
 */
async function countSent(ref: SendRef, sent: number): Promise<void> {
  try {
    await addSentCounts(ref, sent);
  } catch (error) {
    log.error('sent mails could not be counted', { ref: encodeSendRef(ref), sent, ...describeError(error) });
  }
}

/** A worker's last recipient: SES took the mail, the claim is not marked sent yet. */
interface Carried {
  claim: LedgerClaim;
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
  const { batch } = options;
  const distinct = [...new Map(recipients.map((recipient) => [normalized(recipient.email), recipient])).values()];
  const outcome: DeliveryOutcome = { sent: 0, skipped: recipients.length - distinct.length, unsubscribed: [], failed: [], deferred: [], uncertain: 0, throttled: false };
  const countMailed = () => {
    outcome.sent++;
  };
  const refText = encodeSendRef(ref);
  const keepGoing = options.keepGoing ?? (() => true);
  // Once SES throttles past the retries, or the caller's time is up, the rest is handed back unsent.
  let throttled = false;
  let stopped = false;
  const mayStart = () => {
    if (!throttled && !stopped && !keepGoing()) stopped = true;
    return !throttled && !stopped;
  };
  /** Count a recipient the ledger already holds; true when it is absent after all (to be mailed). */
  const countHeld = async (recipient: DeliveryRecipient, entry: LedgerEntry | undefined): Promise<boolean> => {
    const held = await outcomeForBatch(ref, recipient.email, entry, batch, keepGoing);
    if (held === 'sent') countMailed();
    else if (held === 'uncertain') outcome.uncertain++;
    else if (held === 'elsewhere') outcome.skipped++;
    // Another run of this batch still holds it and time is up: the next run of the batch settles it.
    else if (held === 'in-flight') outcome.deferred.push(recipient);
    return held === 'absent';
  };
  // A pending contact is never mailed before it confirms (its consent is asked by its confirmation mail alone).
  const unread = distinct.filter((recipient) => !recipient.pending);
  outcome.skipped += distinct.length - unread.length;
  const { deliveryConcurrency, maxSendRate } = sendingSettings();
  // Looked up a window at a time as the workers reach them, not all up front: a run whose turn or
  // time ends hands the rest on unread, and the fresh message that continues them reads them once.
  // (Read all at once, a batch mailed over n turns read its suppressions about n / 2 times: 6 times
  // for 100 recipients at 4.2 mails a second.) A window holds about half a second of mails at the
  // pace this run keeps (look-up-window.ts), and the next is read when about 200 ms are left.
  const startedAt = Date.now();
  let handedOut = 0;
  let windowsRead = 0;
  const pace = () => runPace(handedOut, Date.now() - startedAt);
  const windowSize = () => lookUpWindowSize(deliveryConcurrency, windowsRead === 0, pace());
  const queue: DeliveryRecipient[] = [];
  let reading: Promise<void> | undefined;
  let readFailure: { error: unknown } | undefined;
  /** Look up the next window: the ledger first (one this batch already mailed counts as mailed even if suppressed since), then suppressions. */
  const readWindow = async (window: DeliveryRecipient[]): Promise<void> => {
    const [inLedger, suppressed] = await ledgerAndSuppressions(
      ref,
      content,
      window.map((recipient) => recipient.email),
      options,
    );
    /** Skipped when suppressed (an unsubscribe is reported as such); false when it is to be mailed. */
    const skippedAsSuppressed = (recipient: DeliveryRecipient): boolean => {
      const address = normalized(recipient.email);
      if (!suppressed.barred.has(address)) return false;
      outcome.skipped++;
      if (suppressed.unsubscribed.has(address)) outcome.unsubscribed.push(recipient);
      return true;
    };
    const held: [DeliveryRecipient, LedgerEntry][] = [];
    for (const recipient of window) {
      const entry = inLedger.get(normalized(recipient.email));
      if (entry) held.push([recipient, entry]);
      else if (!skippedAsSuppressed(recipient)) queue.push(recipient);
    }
    // Recipients the ledger already holds (a redelivered batch) are counted without waiting for a turn.
    await Promise.all(
      held.map(async ([recipient, entry]) => {
        if (!(await countHeld(recipient, entry))) return;
        if (!skippedAsSuppressed(recipient)) queue.push(recipient);
      }),
    );
  };
  const readMore = (): Promise<void> => {
    if (reading) return reading;
    const window = unread.splice(0, windowSize());
    windowsRead++;
    reading = readWindow(window)
      .catch((error: unknown) => {
        readFailure = { error };
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  /** The next recipient to mail; the next window is read ahead once about 200 ms of mails at this run's pace are left. */
  const nextRecipient = async (): Promise<DeliveryRecipient | undefined> => {
    for (;;) {
      const going = readFailure === undefined && mayStart();
      if (going && unread.length > 0 && queue.length <= pace() / 5) void readMore();
      const next = queue.shift();
      if (next) handedOut++;
      if (next || !going) return next;
      if (reading) await reading;
      else if (unread.length === 0) return undefined;
    }
  };
  /** Count a mail SES took once its claim is marked sent (false: a redelivery took this run for dead and counted it uncertain; so does this run). */
  const countMarked = async (marked: Promise<boolean>): Promise<void> => {
    const ok = await marked.catch((error: unknown) => {
      log.error('ledger claim could not be marked sent', { ref: refText, ...describeError(error) });
      return false;
    });
    if (ok) countMailed();
    else outcome.uncertain++;
  };
  const markAlone = (carried: Carried | undefined) => (carried ? countMarked(markRecipientSent(carried.claim)) : Promise.resolve());
  // A worker's mark of one recipient goes with its claim of the next (one round trip, never two
  // unknown claims per worker) while its next turn at the rate limiter comes within about a second
  // (plus any throttling pause, at most 5 s): inside the 10 s margin after SES's timeouts that
  // ledger/batch-outcome.ts gives a claim before another run takes its holder for dead.
  const carryMarks = deliveryConcurrency / maxSendRate <= 1;
  /** Deliver one recipient, after `carried` (the worker's last mail, taken by SES, its claim not yet marked); returns the one to carry on. */
  const deliverOne = async (recipient: DeliveryRecipient, carried: Carried | undefined): Promise<Carried | undefined> => {
    if (!mayStart()) {
      outcome.deferred.push(recipient);
      return carried;
    }
    let mail: OutgoingMail;
    try {
      mail = recipientMail(ref, content, recipient);
    } catch (error) {
      log.warn('recipient could not be prepared', { ref: refText, ...describeError(error) });
      outcome.failed.push(recipient);
      return carried;
    }
    // Wait for the turn first, claim after: a wait cut short leaves no claim behind.
    if (!(await sendBucket().acquire(mayStart))) {
      outcome.deferred.push(recipient);
      return carried;
    }
    let claim: LedgerClaim | undefined;
    let marking: Promise<void> | undefined;
    try {
      if (carried) {
        const written = markSentAndClaim(carried.claim, ref, recipient.email, batch, content.subject);
        marking = countMarked(written.marked);
        claim = await written.claimed;
      } else {
        claim = await claimRecipient(ref, recipient.email, batch, content.subject);
      }
    } catch (error) {
      log.warn('recipient could not be claimed', { ref: refText, ...describeError(error) });
      outcome.failed.push(recipient);
      return undefined;
    } finally {
      await marking;
    }
    if (!claim) {
      // Someone else holds them: another run of this batch (wait for its outcome) or another batch.
      // Given back in between: not claimed by us, so they may be tried again later.
      if (await countHeld(recipient, await readLedgerEntry(ref, recipient.email))) outcome.deferred.push(recipient);
      return undefined;
    }
    await spacedStart();
    const attempt = await sendWithBackoff(mail, mayStart);
    if (attempt.result === 'sent') {
      countMetric('MailsSent');
      const sent = { claim };
      if (carryMarks) return sent;
      await markAlone(sent);
      return undefined;
    }
    if (attempt.result === 'uncertain') {
      outcome.uncertain++;
      log.error('mail outcome unknown; the recipient is not mailed again', { ref: refText, ...describeError(attempt.error) });
      await markRecipientUncertain(claim).catch((error: unknown) => log.error('ledger claim could not be marked', { ref: refText, ...describeError(error) }));
      return undefined;
    }
    if (attempt.result === 'deferred') throttled = true;
    else log.warn('SES refused a mail', { ref: refText, ...describeError(attempt.error) });
    // A claim that cannot be released keeps the recipient out of this send: never risk a second mail.
    const released = await releaseRecipient(claim).catch((error: unknown) => {
      log.error('ledger claim could not be released', { ref: refText, ...describeError(error) });
      return true;
    });
    // Not ours any more: a redelivery marked it uncertain meanwhile, and that is how it counts.
    if (!released) outcome.uncertain++;
    else if (attempt.result === 'deferred') outcome.deferred.push(recipient);
    else outcome.failed.push(recipient);
    return undefined;
  };
  const workers = Array.from({ length: Math.min(deliveryConcurrency, unread.length) }, async () => {
    let carried: Carried | undefined;
    for (let next = await nextRecipient(); next; next = await nextRecipient()) carried = await deliverOne(next, carried);
    await markAlone(carried);
  });
  await Promise.all(workers);
  await reading;
  recordRunPace(handedOut, Date.now() - startedAt);
  // Never looked up (the run stopped first): handed back unclaimed, with any read but not started.
  outcome.deferred.push(...queue.splice(0), ...unread.splice(0));
  // A failed look-up fails the run as it did before any mail: the batch is delivered again, and its ledger counts what this run mailed.
  if (readFailure) throw readFailure.error;
  outcome.throttled = throttled;
  // A single send's batch is counted when it settles (delivery-queue.ts), from the ledger, exactly once.
  if (!batch) await countSent(ref, outcome.sent);
  return outcome;
}
