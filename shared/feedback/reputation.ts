// Sends that protect the sender's reputation: a single send (or a live automation, judged on its
// totals over all steps) whose hard bounces or complaints exceed their limits pauses itself, says why
// in its details (`paused_reason`) and mails the account's notification recipients once. The rates are
// shares of the mails SES reported an outcome for (delivered or bounced), once there are enough of
// them: both numbers come from SES's events, so the send is judged as each bounce or complaint is
// counted (ses-feedback.ts), the events that raise a rate. Deliveries reach ses-events through a
// delivery stream that buffers them for up to 30 s while bounces come at once, so the share is never
// taken of fewer mails than were handed to SES (`triggered`): a send's first bounces are not judged
// against the deliveries still in the buffer. A single send whose bounces or complaints
// already exceed what its limit allows on its whole audience stops at once (`certainVerdict`). A
// send resumed by its owner (reputation-resume.ts; an automation by set-live) is judged again on what
// SES reports afterwards.
import { config } from '../config';
import type { ReputationCounts, ReputationSubject } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { describeError, log } from '../log';
import { automationReputation } from '../automations/reputation-subject';
import { singleSendReputation } from '../single-sends/reputation-subject';
import { pauseNoticeMail } from './reputation-notice';
import { mailNotificationRecipients } from '../single-send-runs/send-summary';

export interface ReputationLimits {
  bounceRate: number;
  complaintRate: number;
  minDeliveries: number;
}

export function reputationLimits(): ReputationLimits {
  const { bouncePauseRate, complaintPauseRate, pauseMinDeliveries } = config();
  return { bounceRate: bouncePauseRate, complaintRate: complaintPauseRate, minDeliveries: pauseMinDeliveries };
}

const percent = (rate: number) => `${Math.round(rate * 10_000) / 100}%`;

const noCounts: ReputationCounts = { delivered: 0, bounces: 0, complaints: 0 };

/** The two rates a send is judged on, each as its count since `base`, its limit and what it says. */
function judgedRates(counts: ReputationCounts, base: ReputationCounts, limits: ReputationLimits) {
  return [
    [counts.bounces - base.bounces, limits.bounceRate, 'bounced'],
    [counts.complaints - base.complaints, limits.complaintRate, 'were reported as spam'],
  ] as const;
}

const pausedBecause = (count: number, mailed: number, limit: number, what: string) =>
  `Paused: ${count} of ${mailed} mails ${what} (${percent(count / mailed)}, over the ${percent(limit)} limit).`;

/**
 * Why mail with these numbers must stop (one sentence for people), judged on the mails reported since
 * `base` (the counters at the last resume); undefined while it may go on.
 */
export function reputationVerdict(counts: ReputationCounts, base: ReputationCounts, limits: ReputationLimits = reputationLimits()): string | undefined {
  const reported = counts.delivered + counts.bounces - (base.delivered + base.bounces);
  const handedToSes = counts.triggered !== undefined && (base.triggered !== undefined || base.delivered + base.bounces + base.complaints === 0) ? counts.triggered - (base.triggered ?? 0) : 0;
  const mailed = Math.max(reported, handedToSes);
  if (mailed <= 0 || mailed < limits.minDeliveries) return undefined;
  for (const [count, limit, what] of judgedRates(counts, base, limits)) {
    if (count / mailed > limit) return pausedBecause(count, mailed, limit, what);
  }
  return undefined;
}

/**
 * The verdict that need not wait for the minimum of reported mails: a send that already has more
 * bounces (or complaints) than its limit allows on all the recipients it queued, and on the minimum
 * itself, can only end over the limit, however its other mails fare. So a 100-recipient send whose
 * 6th bounce comes in stops there, not after it has mailed everyone. Only for a send never resumed:
 * after a resume it is judged on what SES reports since (`reputationVerdict`).
 */
export function certainVerdict(counts: ReputationCounts, queued: number, limits: ReputationLimits = reputationLimits()): string | undefined {
  // Its text names the mails reported on: whatever else went, these bounces alone decide it.
  const mailed = counts.delivered + counts.bounces;
  if (mailed <= 0) return undefined;
  const allowedOf = Math.max(queued, limits.minDeliveries);
  for (const [count, limit, what] of judgedRates(counts, noCounts, limits)) {
    if (count > limit * allowedOf) return pausedBecause(count, mailed, limit, what);
  }
  return undefined;
}

/**
 * Pause the single send, or the automation, the reference's mails count toward when its rates are over
 * their limits; true when this call paused it. The one caller that pauses it does what a pause entails
 * (a paused send leaves the stall watch: it waits for a person, it is not stalled) and mails the notice;
 * a notice that cannot be sent is logged, and it stays paused.
 */
export async function checkReputation(ref: SendRef): Promise<boolean> {
  // The one place the reputation side of the port tells the kinds apart.
  const reputationSubjectOf = (of: SendRef): ReputationSubject =>
    of.kind === 'single-send' ? singleSendReputation(of.accountId, of.utr) : automationReputation(of.accountId, of.automationUtr);
  return checkSubject(reputationSubjectOf(ref), ref.accountId);
}

async function checkSubject(subject: ReputationSubject, accountId: number): Promise<boolean> {
  const view = await subject.view();
  if (!view?.pausable) return false;
  const reason = reputationVerdict(view.counts, view.base) ?? (view.queued ? certainVerdict(view.counts, await view.queued()) : undefined);
  if (!reason) return false;
  if (!(await subject.pause(reason))) return false;
  const context = subject.kind === 'single-send' ? { utr: subject.utr } : { automationUtr: subject.utr };
  log.warn(`${subject.kind === 'single-send' ? 'single send' : 'automation'} paused`, { accountId, ...context, reason });
  await subject.afterPause();
  const mail = pauseNoticeMail(subject.kind, await subject.name(), subject.utr, reason);
  await mailNotificationRecipients(accountId, mail, context).catch((error: unknown) => log.error('pause notice not mailed', { accountId, ...context, ...describeError(error) }));
  return true;
}
