// The dispatcher of a single send: moves it to running, resolves its recipients page by page
// (audience entries minus exclusions, each address once per page; the deliverer leaves out the
// suppressed right before each mail) and fans them out to the delivery queue in batches. Resumable: the cursor
// is written with each page's fan-out, so a run that stops (time budget, crash) continues where the
// last recorded page ended, and a page replayed after a crash yields the same batch ids.
// A send with an A/B subject test goes in phases, each page recorded with its phase by the same
// conditional write: it counts its audience, fans out its test share (the audience's first recipients,
// the subjects taking turns), waits for the winner (ab-test-run.ts), then goes on with the rest.
import { scheduleSendDispatch } from '../send-gates/dispatch-job';
import { getDispatchState, getSendingSingleSend, saveDispatchPage, startDispatch, type SendingSingleSend } from '../single-sends/progress';
import { type DispatchCursor, type DispatchState } from '../single-sends/dispatch-state';
import { reputationPauseReason, singleSendStatus } from '../single-sends/record';
import { clearWaiting } from '../single-sends/waiting';
import { holdSend } from '../send-gates/hold-service';
import { checkSender } from '../send-gates/sender-gate-service';
import { getSendState } from '../single-sends/state';
import { getSegmentRules } from '../segments/repository';
import { sendMessages } from '../queue/queue';
import { currentTime } from '../time';
import { log } from '../log';
import { deliveryMessageBody, packRecipients, recipientsPerMessage, type DeliveryRecipient, type TrimmedRecipient } from '../delivery/delivery-message';
import { audienceOf, excludedAddresses, nextAudiencePage, type AudienceSource } from './recipients';
import { saveAudiencePage } from '../single-sends/audience-pages';
import type { SendRef } from '../ledger/send-ref';
import { finishIfComplete } from './send-summary';
import { sendingSettings } from '../delivery/settings';
import { suppressionStateReady } from '../background-jobs/suppression-state-backfill';
import { awaitWinner, endAudienceCount, testBatches, type PageBatch } from './ab-test-run';

export type DispatchOutcome =
  /** The send no longer exists (deleted before or during dispatch). */
  | 'gone'
  /** A draft (0) or an already completed send (3): nothing to do. */
  | 'not-ready'
  /** Fired before the send's time: an update moved the send later and a newer job will fire. */
  | 'not-due'
  /** Every recipient fanned out (the send completes when the last batch settles). */
  | 'dispatched'
  /** Stopped to stay inside the time budget; a resume job continues. */
  | 'yielded'
  /** Another dispatcher run of the same send recorded the page first; it carries on. */
  | 'superseded'
  /**
   * Held, its details saying why: a segment of its audience is being rebuilt (tried again shortly),
   * its sender is unverified (its confirmation releases it) or deleted (an update can name another),
   * or it is paused for its bounces or complaints (its owner's resume releases it).
   */
  | 'held'
  /** Its sender was deleted while it was running: it ended at status 4. */
  | 'stopped'
  /** Its A/B test waits (for the test's mails to settle, or for the winner's time): held, its job booked. */
  | 'ab-waiting';

export interface DispatchOptions {
  /** Asked after each page: true makes the run schedule its resumption and return. */
  shouldYield?: () => boolean;
  pageSize?: number;
}

/** How long a send waits for a segment being rebuilt before it looks again. */
const segmentWaitMs = 30_000;

/**
 * Hold the send while the segment its next page would come from is being rebuilt: a half-built
 * segment is never mailed. True when it was held.
 */
async function heldForSegment(accountId: number, utr: string, entry: AudienceSource | undefined): Promise<boolean> {
  if (entry?.table !== 'segments_') return false;
  const segment = await getSegmentRules(accountId, Number(entry.id));
  if (!segment?.building) return false;
  await holdSend(accountId, utr, {
    reason: 'segment-rebuilding',
    message: `Segment ${entry.id} is being rebuilt after its rules changed; the send goes on once it is ready.`,
    retryAt: new Date(currentTime().getTime() + segmentWaitMs),
  });
  return true;
}

/**
 * A send's first page is one delivery message's worth: its first mail waits for that many contacts
 * to be read and queued, not for a whole page (on `npm start`, 20 ms sooner at 2,000 recipients).
 * A replayed first page is read to the same size, so it yields the same batches.
 */
const firstPageSize = recipientsPerMessage;

/** A scheduler may fire a moment early; anything earlier than this means the job is stale. */
const earlyToleranceMs = 2_000;

/**
 * The page's recipients to queue, each address once. Suppressions are not looked at here: the
 * deliverer looks them up right before each mail (deliver.ts), which a look now would not spare it.
 */
function mailable(recipients: DeliveryRecipient[], excluded: Set<string>): DeliveryRecipient[] {
  const seen = new Set<string>();
  return recipients.filter((recipient) => {
    const address = recipient.email.trim().toLowerCase();
    if (address === '' || excluded.has(address) || seen.has(address)) return false;
    seen.add(address);
    return true;
  });
}

/** Whether a ready send's time has come (a job replaced by an update may fire before it). */
function isDue(send: SendingSingleSend): boolean {
  return !send.dispatchAt || Date.parse(send.dispatchAt) <= currentTime().getTime() + earlyToleranceMs;
}

/**
 * Nothing is mailed from an unverified address: at every run of a send about to go or going, its
 * sender must be verified at the address the send mails from. The outcome when it may not go on.
 */
async function senderStops(send: SendingSingleSend): Promise<DispatchOutcome | undefined> {
  const goes = send.status === singleSendStatus.running || (send.status === singleSendStatus.ready && isDue(send));
  if (!goes) return undefined;
  const gate = await checkSender(send);
  if (gate === 'usable') return undefined;
  if (gate === 'changed') return 'not-ready';
  return gate;
}

/** Move a ready send to running; the dispatch state of a running one. Undefined: nothing to dispatch. */
async function claimSend(send: SendingSingleSend): Promise<DispatchState | DispatchOutcome> {
  if (send.status === singleSendStatus.ready) {
    if (!isDue(send)) return 'not-due';
    // Read once, at the start: the send's deliverers read the state items only if they were complete by then.
    const suppressionState = await suppressionStateReady(send.user_id);
    if (!(await startDispatch(send.user_id, send.utr, { abTest: send.abTest !== undefined, suppressionState }))) {
      // Another run started it a moment ago (a duplicate fire), or it was deleted or changed.
      const again = await getSendingSingleSend(send.user_id, send.utr);
      if (!again) return 'gone';
      if (again.status !== singleSendStatus.running) return 'not-ready';
    }
  } else if (send.status !== singleSendStatus.running) {
    return 'not-ready';
  }
  return (await getDispatchState(send.user_id, send.utr)) ?? 'not-ready';
}

async function scheduleResume(send: SendingSingleSend): Promise<void> {
  // The send's one job name: deleting the send cancels a pending resume like any other of its jobs.
  await scheduleSendDispatch(send.user_id, send.utr, currentTime(), { resume: true });
}

/** Run (or continue) the dispatch of one single send. */
export async function dispatchSingleSend(accountId: number, utr: string, options: DispatchOptions = {}): Promise<DispatchOutcome> {
  const pageSize = options.pageSize ?? sendingSettings().dispatchPageSize;
  const send = await getSendingSingleSend(accountId, utr);
  if (!send) return 'gone';
  // Paused for its reputation: only its owner's resume moves it on (and books this job again).
  if (send.status === singleSendStatus.running && send.waiting?.reason === reputationPauseReason) return 'held';
  const stopped = await senderStops(send);
  if (stopped) return stopped;
  const claimed = await claimSend(send);
  if (typeof claimed === 'string') return claimed;
  const state = claimed;
  const ref: SendRef = { kind: 'single-send', accountId, utr };
  const audience = audienceOf(send);
  const excluded = state.done ? new Set<string>() : await excludedAddresses(accountId, send.exclude_specific_recipient_id, pageSize);
  // Names only: field values are the contact's data. The mail still goes, those placeholders empty.
  const onTrimmed = (trimmed: TrimmedRecipient) =>
    log.warn('recipient fields too large for a delivery message; largest values left out', { accountId, utr, contactId: trimmed.contactId, droppedFields: trimmed.dropped });
  // A send stored with a test but started without one (or the reverse) goes as a plain send.
  const abTest = state.ab ? send.abTest : undefined;
  while (!state.done) {
    const phase = abTest ? state.ab?.phase : undefined;
    if (abTest && phase === 'waiting') {
      const outcome = await awaitWinner(accountId, utr, state, abTest);
      if (outcome === 'waiting') return 'ab-waiting';
      if (outcome !== 'decided') return outcome;
      continue;
    }
    const counting = phase === 'counting';
    const testing = phase === 'testing';
    const testLeft = testing ? Math.max(0, (state.ab?.testSize ?? 0) - state.fannedRecipients) : 0;
    const cursor: DispatchCursor = state.cursor;
    const entry = audience[cursor.source];
    if (await heldForSegment(accountId, utr, entry)) return 'held';
    // The test share's last page stops at its size: the rest continues from that cursor after the wait.
    const pageLimit = testing ? Math.min(pageSize, testLeft) : state.page === 0 && !counting ? Math.min(pageSize, firstPageSize) : pageSize;
    const page = entry && pageLimit > 0 ? await nextAudiencePage(accountId, entry, cursor.after, pageLimit) : undefined;
    // A page's batch ids are its page number and position: replaying the page reproduces them.
    const batches: PageBatch[] = [];
    let counted = 0;
    let next: DispatchCursor;
    if (page) {
      const recipients = mailable(page.recipients, excluded);
      // Who this page reaches, for a resend of this send later; a replayed page writes the same items.
      // An A/B test's counting pages reach no one: the same recipients come again in later pages.
      if (!counting) {
        await saveAudiencePage(
          accountId,
          utr,
          state.page,
          recipients.map((recipient) => ({ email: recipient.email, contactId: recipient.contactId, ...(recipient.contactId === null ? { fields: recipient.fields } : {}) })),
        );
      }
      // By count and by serialized size (SQS takes 256 KiB a message): large custom fields mean smaller batches.
      if (counting) counted = recipients.length;
      else if (testing && abTest) batches.push(...testBatches(ref, recipients, state.fannedRecipients, abTest.subjects.length, onTrimmed));
      else batches.push(...packRecipients(ref, recipients, onTrimmed).map((batch) => ({ recipients: batch })));
      next = { source: cursor.source, after: page.last };
    } else {
      next = pageLimit > 0 ? { source: cursor.source + 1, after: null } : cursor;
    }
    const recipientCount = batches.reduce((sum, batch) => sum + batch.recipients.length, 0);
    const audienceEnds = !page && next.source >= audience.length;
    // The test share ends at its size, or earlier when the audience shrank since it was counted.
    const testEnds = testing && (audienceEnds || recipientCount >= testLeft);
    const done = audienceEnds && !counting && !testing;
    // Before fanning out: a send deleted meanwhile stops, one paused meanwhile resumes with this page.
    const view = await getSendState(accountId, utr);
    if (!view) return 'gone';
    if (view.paused) return 'held';
    if (batches.length > 0) {
      await sendMessages(
        'deliveries',
        batches.map((batch, index) => deliveryMessageBody({
            ref,
            recipients: batch.recipients,
            batchId: `${state.page}.${index}`,
            ...(batch.variant === undefined ? {} : { variant: batch.variant }),
            ...(state.ledgerByAddress ? { ledgerByAddress: true as const } : {}),
            ...(state.suppressionState ? { suppressionState: true as const } : {}),
          })),
        // One message group per account: SQS serves accounts fairly, so a big send does not starve the others.
        { group: String(accountId) },
      );
    }
    if (counting && abTest && state.ab && audienceEnds) {
      if (!(await endAudienceCount(accountId, utr, state, abTest, state.ab.counted + counted))) return 'superseded';
      const after = await getDispatchState(accountId, utr);
      if (!after) return 'gone';
      Object.assign(state, after);
      continue;
    }
    const ab = counting
      ? { phase: 'counting' as const, set: { ab_counted: (state.ab?.counted ?? 0) + counted } }
      : testing
        ? { phase: 'testing' as const, set: testEnds ? { ab_phase: 'waiting' } : {} }
        : undefined;
    const saved = await saveDispatchPage(accountId, utr, { expectedPage: state.page, cursor: next, batches: batches.length, recipients: recipientCount, done, ...(ab ? { ab } : {}) });
    if (!saved) return 'superseded';
    state.page += 1;
    state.cursor = next;
    state.done = done;
    state.fannedBatches += batches.length;
    state.fannedRecipients += recipientCount;
    if (state.ab && counting) state.ab.counted += counted;
    if (state.ab && testEnds) state.ab.phase = 'waiting';
    if (send.waiting) {
      // Moving again: the wait it showed (a stall being resumed, a hold) is over.
      await clearWaiting(accountId, utr, send.waiting.since);
      send.waiting = undefined;
    }
    if (!done && options.shouldYield?.()) {
      await scheduleResume(send);
      return 'yielded';
    }
  }
  await finishIfComplete(accountId, utr);
  return 'dispatched';
}
