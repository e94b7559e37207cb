// The daily slide of the `in last days` windows of engagement segments: one one-time schedule per
// account with window segments (booked at their save, re-booked by each run) fires the
// `segment-windows` function at 00:05 UTC, which starts a background job that re-judges the contacts
// whose latest open or click fell on a day that has just left a window (found on the engagement day
// index, never by a scan).
import { startJob } from '../background-jobs/job-queue';
import { listEngagementSegments, type EngagementSegment } from '../segments/engagement-index';
import { addDays, dayOf, namesSingleSend } from '../segments/engagement-rules';
import { scheduleAt } from '../scheduling/scheduler';
import { currentTime } from '../time';

/** The one-time schedule of an account's next slide (EventBridge Scheduler names: [0-9a-zA-Z-_.]). */
function slideJobName(accountId: number): string {
  return `segment-windows-${accountId}`;
}

/** Minutes after midnight UTC the slide runs, once the day has turned. */
const slideMinute = 5;

export function windowSegments(segments: readonly EngagementSegment[]): EngagementSegment[] {
  return segments.filter((segment) => segment.conditions.some((condition) => !namesSingleSend(condition.operator)));
}

/**
 * Book the account's next slide (00:05 UTC tomorrow) when it has window segments; booking again
 * replaces it, so a save of any number of them keeps one schedule per account.
 */
export async function bookWindowSlide(accountId: number): Promise<void> {
  if (windowSegments(await listEngagementSegments(accountId)).length === 0) return;
  const tomorrow = addDays(dayOf(currentTime()), 1);
  await scheduleAt({
    name: slideJobName(accountId),
    at: new Date(Date.parse(`${tomorrow}T00:00:00Z`) + slideMinute * 60_000),
    target: 'segment-windows',
    payload: { accountId, from: tomorrow },
  });
}

/**
 * The slide is due (the scheduler fired): start the job that moves the contacts whose latest open or
 * click left a window on each day from `from` through today (more than one after a late run), then
 * book tomorrow's. Answers the job's id, or undefined when the account has no window segment left.
 */
export async function startWindowSlide(accountId: number, from: string): Promise<number | undefined> {
  const today = dayOf(currentTime());
  if (windowSegments(await listEngagementSegments(accountId)).length === 0) return undefined;
  const first = from <= today ? from : today;
  const id = await startJob(accountId, { kind: 'segment-window-slide', target: today, version: first, message: 'Waiting to move the contacts whose engagement left a window.' });
  await bookWindowSlide(accountId);
  return id;
}
