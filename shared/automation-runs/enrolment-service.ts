// Enrolling contacts in live automations: the hooks the contacts, import and segment code call when
// contacts join a target, and the enrolment of one automation's joiners with their first due time.
import { config } from '../config';
import { firstStepWait } from '../automations/steps';
import { liveAutomationsOn, type AutomationSettings, type AutomationTarget } from '../automations/repository';
import { enrolContacts, type Joiner } from '../automations/enrolments';
import { describeError, log } from '../log';
import { scheduleAt } from '../scheduling/scheduler';
import type { SegmentJoin } from '../segments/membership';
import { currentTime } from '../time';
import { dueAfter } from '../automations/buckets';

/** The local scheduler job that runs the step runner at once (the recurring tick is `automation-steps-tick`). */
export const runNowJobName = 'automation-steps-now';

/**
 * Locally, run the step runner now, so a step due at once goes out within a second instead of at
 * the next minute's tick. Deployed, the recurring schedule runs it every minute; one fixed job name
 * keeps the number of schedules constant however many contacts join.
 */
export async function runStepsSoon(): Promise<void> {
  if (config().runtime !== 'local') return;
  await scheduleAt({ name: runNowJobName, at: currentTime(), target: 'automation-steps', payload: { trigger: 'enrolment' } });
}

/**
 * Enrol contacts in one automation: each starts at the first step, due after its waiting period from
 * now. An automation without steps enrols nobody (nothing would ever be sent). Answers how many joined.
 */
export async function enrolInAutomation(accountId: number, automation: AutomationSettings, joiners: readonly Joiner[]): Promise<number> {
  if (joiners.length === 0) return 0;
  const first = await firstStepWait(accountId, automation.utr);
  if (!first) return 0;
  return enrolContacts(accountId, automation.utr, joiners, dueAfter(currentTime(), first));
}

async function enrolJoiners(accountId: number, target: AutomationTarget, joiners: readonly Joiner[]): Promise<void> {
  if (joiners.length === 0) return;
  try {
    let enrolled = 0;
    for (const automation of await liveAutomationsOn(accountId, target)) enrolled += await enrolInAutomation(accountId, automation, joiners);
    if (enrolled > 0) await runStepsSoon();
  } catch (error) {
    // The contact write has succeeded; a failed enrolment must not turn it into an error response.
    log.error('contacts could not be enrolled in automations', { accountId, target: `${target.table}${target.id}`, joiners: joiners.length, ...describeError(error) });
  }
}

/** Contacts were created in a contact type (API add, CSV import batch): enrol them in its live automations. */
export function onContactsJoined(accountId: number, contactTypeId: number, contacts: readonly { id: number; email: string }[]): Promise<void> {
  return enrolJoiners(accountId, { table: 'contacts_', id: contactTypeId }, contacts.map((contact) => ({ contactId: contact.id, email: contact.email })));
}

/**
 * Contacts started to match a segment: enrol them in its live automations. Recipients stored by hand
 * (no contact) are not enrolled: an enrolment follows a contact.
 */
export function onSegmentJoined(accountId: number, segmentId: number, recipients: readonly { contactId: number | null; email: string }[]): Promise<void> {
  const joiners = recipients.filter((recipient): recipient is Joiner => recipient.contactId !== null);
  return enrolJoiners(accountId, { table: 'segments_', id: segmentId }, joiners);
}

/** Contacts started to match segments (a contact change, an import, a rebuild page): enrol each in its segment's live automations. */
export async function onSegmentsJoined(accountId: number, joins: readonly SegmentJoin[]): Promise<void> {
  for (const join of joins) await onSegmentJoined(accountId, join.segmentId, join.joined);
}
