// Time arithmetic of the automation engine: step waiting periods, and the hour buckets and shards of
// the due index that the step runner drains (pure functions, so they are unit-tested on their own).
import type { AutomationStep } from './steps';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/**
 * Shards per hour bucket. The due index is shared by every account, and a gsi1 partition takes about
 * 1,000 write units a second; the sort keys start with the due time, so writes land at the end of
 * the range and split-for-heat cannot help. One account's import at 5,000 rows/s into a type with a
 * live automation (or a custom automation set live on a large target) indexes 5,000 enrolments a
 * second in one hour, one unit each: over 16 shards by contact id that is 313 WCU/s a shard, 31% of
 * each, so one account's import cannot throttle the index for the others (three such imports at once
 * fit). With 4 shards it was 1,250 a shard: throttled. The runner reads the 16 shards of an hour only
 * when an enrolment was indexed in it (enrolments.ts marks the hour first), else the 4 used before.
 */
export const dueShards = 16;

/** Shards per hour bucket before there were 16: hours without a mark are read in these only. */
export const legacyDueShards = 4;

/** How far back a runner with no memory of earlier runs looks for enrolments left due. */
export const firstRunLookbackHours = 7 * 24;

/** The hours before the current one that every run reads again (index lag, runs cut short, clock skew). */
export const rereadHours = 1;

/** A step's waiting period in milliseconds: `instantly` waits nothing. */
export function waitingMs(step: Pick<AutomationStep, 'waiting_type' | 'waiting_period'>): number {
  if (step.waiting_type === 'hours') return step.waiting_period * hourMs;
  if (step.waiting_type === 'days') return step.waiting_period * dayMs;
  return 0;
}

/** When a step falls due, counted from the moment the step before it was sent (or the enrolment). */
export function dueAfter(from: Date, step: Pick<AutomationStep, 'waiting_type' | 'waiting_period'>): Date {
  return new Date(from.getTime() + waitingMs(step));
}

/** The UTC hour bucket of a time: `yyyy-mm-ddThh`. */
export function hourBucket(at: Date): string {
  return at.toISOString().slice(0, 13);
}

/** The start of a bucket's hour. */
export function bucketStart(bucket: string): Date {
  return new Date(`${bucket}:00:00.000Z`);
}

/** Every hour bucket from `first` to `last`, both included, oldest first. */
export function bucketsBetween(first: string, last: string): string[] {
  const buckets: string[] = [];
  for (let at = bucketStart(first).getTime(); at <= bucketStart(last).getTime(); at += hourMs) buckets.push(hourBucket(new Date(at)));
  return buckets;
}

/**
 * The buckets a run at `now` drains: from the hour after the last one drained completely (or the
 * look-back on a first run), and always the re-read hours before the current one. A remembered
 * hour in the future (a clock set back) is ignored.
 */
export function bucketsToDrain(now: Date, lastDrained: string | undefined): string[] {
  const current = bucketStart(hourBucket(now)).getTime();
  const reread = current - rereadHours * hourMs;
  const remembered = lastDrained === undefined ? undefined : bucketStart(lastDrained).getTime() + hourMs;
  const from = remembered === undefined || remembered > current ? current - firstRunLookbackHours * hourMs : Math.min(remembered, reread);
  return bucketsBetween(hourBucket(new Date(from)), hourBucket(now));
}

/** The last hour a run at `now` may mark drained: the re-read hours stay open for the next run. */
export function drainedThrough(now: Date): string {
  return hourBucket(new Date(bucketStart(hourBucket(now)).getTime() - (rereadHours + 1) * hourMs));
}

/** The shard of a contact's enrolments. */
export function shardOf(contactId: number): number {
  return contactId % dueShards;
}

/**
 * Where an enrolment is indexed: its due time, but never an hour before `now`, so one left due
 * (throttled, failed, paused) is never put back into an hour a runner already marked drained.
 */
export function indexTime(dueAt: Date, now: Date): Date {
  return dueAt.getTime() < now.getTime() ? now : dueAt;
}
