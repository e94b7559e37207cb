// Keys of automations, their steps and enrolments.
import { type Key, entityPartition, idSortKey } from '../table/keys';

// Automations

export const AUTOMATION = 'automation';

export const AUTOMATION_STEP = 'automation-step';

/** The partition holding an account's automations (the list Queries it and orders by id). */
export function automationPartition(accountId: number): string {
  return entityPartition(accountId, AUTOMATION);
}

/** An automation's own item, by its utr: every automation operation names the automation by utr. */
export function automationKey(accountId: number, utr: string): Key {
  return { pk: automationPartition(accountId), sk: utr };
}

/** The partition of one automation's steps (the spec's schedules), in step order: ids grow as steps are added. */
export function automationStepPartition(accountId: number, automationUtr: string): string {
  return entityPartition(accountId, `${AUTOMATION_STEP}#${automationUtr}`);
}

export function automationStepKey(accountId: number, automationUtr: string, stepId: number): Key {
  return { pk: automationStepPartition(accountId, automationUtr), sk: idSortKey(stepId) };
}

/**
 * A step's design (`template_json`, `template_html`, up to 350 KB) in an item of its own, apart from
 * the step's small item: listing an automation's steps (on every enrolment and runner pass) then
 * reads kilobytes, and a design is read only when the step is rendered (once per container).
 */
export function automationStepDesignKey(accountId: number, automationUtr: string, stepId: number): Key {
  return { pk: entityPartition(accountId, `${AUTOMATION_STEP}-design#${automationUtr}`), sk: idSortKey(stepId) };
}

/** The item that finds a step by its utr alone (schedule delete and the design links name only the step). */
export function automationStepUtrKey(accountId: number, stepUtr: string): Key {
  return { pk: entityPartition(accountId, `${AUTOMATION_STEP}-utr`), sk: stepUtr };
}

// Automation enrolments

export const AUTOMATION_ENROLMENT = 'automation-enrolment';

/** The partition of one automation's enrolments (resume, delete and tests read it), one item per contact. */
export function automationEnrolmentPartition(accountId: number, automationUtr: string): string {
  return entityPartition(accountId, `${AUTOMATION_ENROLMENT}#${automationUtr}`);
}

/** A contact's enrolment in an automation: the key itself keeps a contact enrolled at most once. */
export function automationEnrolmentKey(accountId: number, automationUtr: string, contactId: number): Key {
  return { pk: automationEnrolmentPartition(accountId, automationUtr), sk: idSortKey(contactId) };
}

/**
 * The gsi1 partition of enrolments due within one UTC hour (`yyyy-mm-ddThh`), split into shards. It is
 * global (not per account): the step runner drains every account's due enrolments from it.
 */
export function automationDuePartition(hour: string, shard: number): string {
  return `AUTOMATION-DUE#${hour}#${shard}`;
}

/** The gsi1 sort key of a due enrolment: its due time first, so one Query reads what is due by now. */
export function automationDueSortKey(dueAt: Date, accountId: number, automationUtr: string, contactId: number): string {
  return `${dueAt.toISOString()}#${accountId}#${automationUtr}#${idSortKey(contactId)}`;
}

/** Exclusive gsi1sk bound for enrolments due at or before `now`: '$' sorts right after the '#' separator. */
export function automationDueBound(now: Date): string {
  return `${now.toISOString()}$`;
}

/** The step runner's own state: the last hour it drained completely. */
export function automationRunnerStateKey(): Key {
  return { pk: 'AUTOMATION-RUNNER', sk: 'STATE' };
}

// Paged lists and contact import jobs

/** The gsi1 partition listing an account's automations in id order (their items are keyed by utr). */
export function automationIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${AUTOMATION}-by-id`);
}

/** The gsi1 keys an automation carries to appear in its account's id-ordered list. */
export function automationIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: automationIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}
