// Keys of the local scheduler's jobs.
import { type Key } from '../table/keys';

// Scheduled jobs (the local scheduler adapter; EventBridge Scheduler keeps them when deployed)

/** The gsi1 partition that holds every pending local schedule, so due jobs come from one Query. */
export const SCHEDULE_PARTITION = 'SCHEDULE';

/** A local schedule's own item, by its name (names are unique, as in EventBridge Scheduler). */
export function scheduledJobKey(name: string): Key {
  return { pk: `SCHEDULE#${name}`, sk: 'SCHEDULE' };
}

/** The gsi1 keys that order pending schedules by due time: `<ISO due time>#<name>`. */
export function scheduledJobDueKey(dueAt: Date, name: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: SCHEDULE_PARTITION, gsi1sk: `${dueAt.toISOString()}#${name}` };
}

/** Exclusive gsi1sk bound for schedules due at or before `now`: '$' sorts right after the '#' separator. */
export function scheduledJobsDueBound(now: Date): string {
  return `${now.toISOString()}$`;
}
