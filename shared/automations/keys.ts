// Keys of automations, their steps and enrolments.
import { counterShardKeys } from '../table/counter-shards';
import { type Key, entityPartition, idSortKey, shardPartition } from '../table/keys';

/** Automation and step utrs are UUIDs; any other text cannot name one, so it is never looked up. */
export function isUuidUtr(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}

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

/**
 * Write shards of an automation's totals (table/counter-shards.ts), apart from its item: the item
 * carries the id index's keys, so a count on it was copied whole into gsi1, and every event of every
 * step of the automation met on that one item.
 */
export function automationCounterKeys(accountId: number, automationUtr: string): Key[] {
  return counterShardKeys(entityPartition(accountId, `${AUTOMATION}-counters#${automationUtr}`));
}

/** Write shards of one step's counters (its line of `automations/stats`), apart from its utr item. */
export function automationStepCounterKeys(accountId: number, stepUtr: string): Key[] {
  return counterShardKeys(entityPartition(accountId, `${AUTOMATION_STEP}-counters#${stepUtr}`));
}

// Automation enrolments

export const AUTOMATION_ENROLMENT = 'automation-enrolment';

/**
 * Shards of each automation's enrolment partition. An import of 5,000 rows/s into a type with a live
 * automation enrols 5,000 contacts a second, one small item each (1 WCU): one partition takes 1,000,
 * and enrolments' sort keys (contact ids) grow, so split-for-heat cannot help. By contact id over 16
 * shards: 313 WCU/s a partition.
 */
export const automationEnrolmentShards = 16;

/**
 * The partition of one automation's enrolments as they were stored before they were sharded; read
 * beside the shards (resume, delete, the at-most-once check) until it is empty.
 */
export function automationEnrolmentPartition(accountId: number, automationUtr: string): string {
  return entityPartition(accountId, `${AUTOMATION_ENROLMENT}#${automationUtr}`);
}

/** Every shard of one automation's enrolment partition, each in contact id order. */
export function automationEnrolmentShardPartitions(accountId: number, automationUtr: string): string[] {
  return Array.from({ length: automationEnrolmentShards }, (_, shard) => shardPartition(automationEnrolmentPartition(accountId, automationUtr), shard));
}

/** A contact's enrolment in an automation, in shard `contact id % 16`: the key itself keeps a contact enrolled at most once. */
export function automationEnrolmentKey(accountId: number, automationUtr: string, contactId: number): Key {
  return { pk: shardPartition(automationEnrolmentPartition(accountId, automationUtr), contactId % automationEnrolmentShards), sk: idSortKey(contactId) };
}

/** Where a contact's enrolment was stored before enrolments were sharded. */
export function legacyEnrolmentKey(accountId: number, automationUtr: string, contactId: number): Key {
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

/**
 * The item that says some enrolment was indexed in an hour's 16 shards: the runner reads all 16
 * shards only of hours that have one (else only the 4 shards enrolments used before there were 16).
 */
export function automationDueHourKey(hour: string): Key {
  return { pk: 'AUTOMATION-DUE-HOURS', sk: hour };
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
