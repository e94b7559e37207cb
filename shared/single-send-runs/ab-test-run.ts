// A single send's A/B subject test as its dispatcher runs it: the test share's pages split among the
// subjects, the end of the audience count (the share's size, or the test skipped), and the wait for
// the winner, which holds the send (booking its dispatch job) until the test's mails have settled and
// its wait is over, then records the winner with one conditional write.
import { holdSend } from '../send-gates/hold-service';
import { abPlan, abVariantCountsOf, abVariantOf, abWinner, type AbSettings } from '../single-sends/ab-test';
import { readCounterShards } from '../single-sends/counters';
import { chooseAbSubject, getDispatchState, saveDispatchPage, startAbWait as recordAbWait } from '../single-sends/progress';
import { type DispatchState } from '../single-sends/dispatch-state';
import { packRecipients, type DeliveryRecipient, type TrimmedRecipient } from '../delivery/delivery-message';
import type { SendRef } from '../ledger/send-ref';
import { currentTime } from '../time';
import { log } from '../log';

/** One delivery batch of a page: its recipients, and the subject they get when it is part of the test share. */
export interface PageBatch {
  recipients: DeliveryRecipient[];
  variant?: number;
}

/**
 * A page of the test share in batches of one subject each: the recipients take the subjects in turn,
 * counted from `position` (the test recipients fanned out before this page), so a replayed page gets
 * the same subjects and batch ids.
 */
export function testBatches(ref: SendRef, recipients: readonly DeliveryRecipient[], position: number, subjects: number, onTrimmed: (trimmed: TrimmedRecipient) => void): PageBatch[] {
  const groups: DeliveryRecipient[][] = Array.from({ length: subjects }, () => []);
  recipients.forEach((recipient, index) => groups[abVariantOf(position + index, subjects)]?.push(recipient));
  return groups.flatMap((group, variant) => packRecipients(ref, group, onTrimmed).map((batch) => ({ recipients: batch, variant })));
}

/**
 * The audience is counted: start the test from the audience's first recipient, or, when it is too small
 * for one, skip it (the first subject for everyone, the reason kept). False when another run recorded it first.
 */
export async function endAudienceCount(accountId: number, utr: string, state: DispatchState, settings: AbSettings, counted: number): Promise<boolean> {
  const plan = abPlan(counted, settings);
  const start = { source: 0, after: null };
  const saved =
    plan.kind === 'test'
      ? await saveDispatchPage(accountId, utr, {
          expectedPage: state.page,
          cursor: start,
          batches: 0,
          recipients: 0,
          done: false,
          ab: { phase: 'counting', set: { ab_phase: 'testing', ab_counted: counted, ab_test_size: plan.testSize } },
        })
      : await chooseAbSubject(accountId, utr, {
          from: 'counting',
          subject: settings.subjects[0] as string,
          winner: null,
          expectedPage: state.page,
          set: { ab_counted: counted, ab_test_size: 0, ab_skipped_reason: plan.reason },
          cursor: start,
        });
  if (!saved) return false;
  log.info('A/B test planned', { accountId, utr, audience: counted, plan });
  return true;
}

/** The hold's reason while a test waits: its mails settling, then the time to choose the winner. */
export const abTestWaitReason = 'ab-test';

/** How long the dispatcher waits before it looks again whether the test's mails have all settled. */
const settlePollMs = 60_000;

/** A scheduler may fire a moment early: a winner due within this is chosen now. */
const earlyToleranceMs = 2_000;

export type WinnerOutcome = 'decided' | 'waiting' | 'superseded' | 'gone';

/**
 * The test share is fanned out: hold the send until its mails have settled and its wait is over, then
 * choose the winner (the rest of the audience gets it). 'decided' with `state` brought up to date when
 * the rest may go out now; 'waiting' when the send is held, its dispatch job booked for the next look.
 */
export async function awaitWinner(accountId: number, utr: string, state: DispatchState, settings: AbSettings): Promise<WinnerOutcome> {
  const fresh = await getDispatchState(accountId, utr);
  if (!fresh?.ab) return 'gone';
  if (fresh.ab.phase !== 'waiting') {
    Object.assign(state, fresh);
    return 'decided';
  }
  const now = currentTime();
  const waitMs = settings.wait_minutes * 60_000;
  if (fresh.settledBatches < fresh.fannedBatches) {
    // The wait starts once the test's last mail is out: looked at again in a minute (or the wait, if shorter).
    const open = fresh.fannedBatches - fresh.settledBatches;
    await holdSend(accountId, utr, {
      reason: abTestWaitReason,
      message: `A/B test: ${open} of ${fresh.fannedBatches} batches of the test share are still being mailed; the wait of ${settings.wait_minutes} minutes starts once they are out.`,
      retryAt: new Date(now.getTime() + Math.min(waitMs, settlePollMs)),
    });
    return 'waiting';
  }
  let decideAt = fresh.ab.decideAt === null ? undefined : new Date(fresh.ab.decideAt);
  if (!decideAt) {
    // The last settle is the send's last progress: the wait runs from it.
    const candidate = new Date(Date.parse(fresh.progressAt) + waitMs);
    decideAt = (await startAbWait(accountId, utr, candidate)) ?? candidate;
  }
  if (decideAt.getTime() - earlyToleranceMs > now.getTime()) {
    await holdSend(accountId, utr, {
      reason: abTestWaitReason,
      message: `A/B test: the winning subject is chosen at ${decideAt.toISOString()} and then sent to the rest of the audience.`,
      retryAt: decideAt,
    });
    return 'waiting';
  }
  return decide(accountId, utr, state, fresh, settings);
}

/** Record when the winner is due; the time another run recorded first, if it did. */
async function startAbWait(accountId: number, utr: string, decideAt: Date): Promise<Date | undefined> {
  if (await recordAbWait(accountId, utr, decideAt)) return decideAt;
  const recorded = (await getDispatchState(accountId, utr))?.ab?.decideAt;
  return recorded ? new Date(recorded) : undefined;
}

async function decide(accountId: number, utr: string, state: DispatchState, fresh: DispatchState, settings: AbSettings): Promise<WinnerOutcome> {
  const shards = (await readCounterShards(accountId, [utr], true)).get(utr) ?? [];
  const variants = abVariantCountsOf(shards, settings.subjects.length);
  const winner = abWinner(variants, settings.metric);
  const chosen = await chooseAbSubject(accountId, utr, { from: 'waiting', subject: settings.subjects[winner] as string, winner, expectedPage: fresh.page });
  const after = await getDispatchState(accountId, utr);
  if (!after) return 'gone';
  // Another run chose it a moment ago: its choice stands, and this run goes on with it.
  if (!chosen && after.ab?.phase !== 'winner_sent') return 'superseded';
  if (chosen) log.info('A/B test winner chosen', { accountId, utr, metric: settings.metric, variants, winner });
  Object.assign(state, after);
  return 'decided';
}
