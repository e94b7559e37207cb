// The `segment-window-slide` job (started by engagement-windows.ts): for each day it covers, every
// shard of every day index partition whose day has just left a window, a page of addresses at a time,
// each page's contacts judged again against the account's window segments.
import type { JobOutcome, JobRun } from '../background-jobs/job-queue';
import { engagementDayPartition, engagementDayShards, type EngagementKind } from '../ledger/keys';
import { listEngagementSegments, type EngagementSegment } from '../segments/engagement-index';
import { addDays, namesSingleSend } from '../segments/engagement-rules';
import { queryPageAfter } from '../table/records';
import { resyncAddresses } from './engagement-events';
import { windowSegments } from './engagement-windows';

/** One day-index partition shard to read: the addresses whose latest `kind` fell on `day`. */
interface SlideUnit {
  kind: EngagementKind;
  day: string;
  shard: number;
}

/** Every shard of every day that left a window on the days from `first` through `last`. */
function slideUnits(segments: readonly EngagementSegment[], first: string, last: string): SlideUnit[] {
  const windows = new Set<string>();
  for (const segment of segments) {
    for (const condition of segment.conditions) {
      if (namesSingleSend(condition.operator)) continue;
      // `email_opened` reads clicks too (a click counts as an open).
      windows.add(`click|${condition.value}`);
      if (condition.field === 'email_opened') windows.add(`open|${condition.value}`);
    }
  }
  const fallen = new Set<string>();
  for (let day = first; day <= last; day = addDays(day, 1)) {
    for (const window of windows) {
      const [kind, days] = window.split('|') as [EngagementKind, string];
      fallen.add(`${kind}|${addDays(day, -Number(days) - 1)}`);
    }
  }
  return [...fallen].sort().flatMap((entry) => {
    const [kind, day] = entry.split('|') as [EngagementKind, string];
    return Array.from({ length: engagementDayShards }, (_, shard) => ({ kind, day, shard }));
  });
}

/** Addresses read per page of the slide: one checkpoint each. */
const slidePageSize = 200;

/** The `segment-window-slide` job: its cursor is the unit (index) and the last address read in it. */
export async function runWindowSlideJob(run: JobRun): Promise<JobOutcome> {
  const { accountId, job } = run;
  const segments = windowSegments(await listEngagementSegments(accountId));
  const units = slideUnits(segments, String(job.version ?? job.target), job.target);
  let cursor = job.cursor ?? { phase: '0', after: null };
  for (let unit = Number(cursor.phase); unit < units.length; ) {
    if (!run.keepGoing()) return { status: 'paused' };
    const { kind, day, shard } = units[unit] as SlideUnit;
    const page = await queryPageAfter({ partition: engagementDayPartition(accountId, kind, day, shard), index: 'gsi1', after: cursor.after === null ? undefined : String(cursor.after), limit: slidePageSize });
    const addresses = page.items.map((item) => String(item.gsi1sk));
    if (addresses.length > 0) await resyncAddresses(accountId, segments, addresses);
    const done = addresses.length < slidePageSize;
    const next = done ? { phase: String(unit + 1), after: null } : { phase: String(unit), after: addresses.at(-1) ?? null };
    if (!(await run.checkpoint(addresses.length, next, 'Moving the contacts whose engagement left a window.'))) return { status: 'superseded', message: 'The slide was finished by another run.' };
    cursor = next;
    unit = Number(next.phase);
  }
  return { status: 'completed', message: 'The engagement windows have moved on.' };
}
