// Automation enrolments: every table access for them and for the step runner's state. One item per
// automation and contact (so a contact is enrolled at most once), in one of 16 shards of the
// automation's enrolment partition (keys.ts); an active enrolment carries gsi1 keys in the due index
// (due-index.ts). Enrolments stored before the
// shards stay where they are: each change goes to the item where it was read, and readers of a whole
// automation read that old partition beside the shards.
import { dueIndexKey } from './due-index';
import { toEnrolment, type Enrolment, type EnrolmentState } from './enrolment-record';
import { currentTime, isoTimestamp } from '../time';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { inParallel } from '../table/concurrency';
import {
  AUTOMATION_ENROLMENT,
  automationEnrolmentKey,
  automationEnrolmentPartition,
  automationEnrolmentShardPartitions,
  automationKey,
  legacyEnrolmentKey,
} from './keys';
import { batchGetAll } from '../table/batch';
import { conditionHeld, deleteItem, getItem, putItem, queryAll, queryPage, queryPageAfter, updateItem, type Item } from '../table/records';
import { ShardMerge, pageReadSize } from '../table/shard-merge';
import { committed, transactWrite } from '../table/transactions';

/** A contact joining an automation's target. */
export interface Joiner {
  contactId: number;
  email: string;
}

const writeConcurrency = 16;

/** `automationStatus.live` (repository.ts imports this module, so the value is not imported back). */
const liveStatus = 1;

/** Every partition an automation's enrolments may be in: its shards, and where they were stored before. */
function enrolmentPartitions(accountId: number, automationUtr: string): string[] {
  return [...automationEnrolmentShardPartitions(accountId, automationUtr), automationEnrolmentPartition(accountId, automationUtr)];
}

/**
 * The contacts among these already enrolled in the automation's unsharded partition (stored before
 * the shards). One Query of one item first says whether that partition holds any: it is read on every
 * call, not remembered, because while a stage is upgraded the previous version still enrols there.
 */
async function enrolledBefore(accountId: number, automationUtr: string, contactIds: readonly number[]): Promise<Set<number>> {
  const probe = await queryPage({ partition: automationEnrolmentPartition(accountId, automationUtr), limit: 1 });
  if (probe.items.length === 0) return new Set();
  const items = await batchGetAll(contactIds.map((id) => legacyEnrolmentKey(accountId, automationUtr, id)), { consistentRead: true });
  return new Set(items.map((item) => Number(item.contact_id)));
}

/**
 * Enrol contacts whose first step falls due at `dueAt`; a contact already enrolled (now or ever) is
 * left as it is. Answers the number of new enrolments.
 */
export async function enrolContacts(accountId: number, automationUtr: string, joiners: readonly Joiner[], dueAt: Date): Promise<number> {
  const now = currentTime();
  let created = 0;
  const before = await enrolledBefore(accountId, automationUtr, [...new Set(joiners.map((joiner) => joiner.contactId))]);
  await inParallel(joiners.filter((joiner) => !before.has(joiner.contactId)), writeConcurrency, async (joiner) => {
    const put = putItem({
      Item: {
        ...automationEnrolmentKey(accountId, automationUtr, joiner.contactId),
        ...(await dueIndexKey(accountId, automationUtr, joiner.contactId, dueAt, now)),
        entity: AUTOMATION_ENROLMENT,
        account_id: accountId,
        automation_utr: automationUtr,
        contact_id: joiner.contactId,
        email: joiner.email,
        last_step_id: 0,
        due_at: dueAt.toISOString(),
        state: 'active',
        enrolled_at: isoTimestamp(now),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    if (await conditionHeld(put)) created++;
  });
  return created;
}

export async function getEnrolment(accountId: number, automationUtr: string, contactId: number): Promise<Enrolment | undefined> {
  const item = (await getItem(automationEnrolmentKey(accountId, automationUtr, contactId))) ?? (await getItem(legacyEnrolmentKey(accountId, automationUtr, contactId)));
  return item ? toEnrolment(item) : undefined;
}

/** Every enrolment of an automation, in contact id order. */
export async function listEnrolments(accountId: number, automationUtr: string): Promise<Enrolment[]> {
  const items = (await Promise.all(enrolmentPartitions(accountId, automationUtr).map((partition) => queryAll({ partition })))).flat();
  return items.map(toEnrolment).sort((a, b) => a.contactId - b.contactId);
}

/** Only the version of the enrolment the runner read may change: a concurrent runner's change wins. */
function unchangedCondition(enrolment: Enrolment) {
  return {
    ConditionExpression: 'last_step_id = :last AND #state = :state',
    values: { ':last': enrolment.lastStepId, ':state': enrolment.state },
  };
}

async function conditionalUpdate(enrolment: Enrolment, update: string, values: Record<string, unknown>): Promise<boolean> {
  const condition = unchangedCondition(enrolment);
  return conditionHeld(
    updateItem({
      Key: enrolment.key,
      UpdateExpression: update,
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ...condition.values, ...values },
    }),
  );
}

/** Record a step as sent and index the next one; false when another run moved the enrolment first. */
export async function advanceEnrolment(enrolment: Enrolment, sentStepId: number, nextDueAt: Date): Promise<boolean> {
  const index = await dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, nextDueAt, currentTime());
  return conditionalUpdate(enrolment, 'SET last_step_id = :sent, due_at = :due, gsi1pk = :gpk, gsi1sk = :gsk, #state = :active', {
    ':sent': sentStepId,
    ':due': nextDueAt.toISOString(),
    ':gpk': index.gsi1pk,
    ':gsk': index.gsi1sk,
    ':active': 'active',
  });
}

/** End an enrolment (its item stays, so the contact is never enrolled again) and take it out of the due index. */
export function endEnrolment(enrolment: Enrolment, state: Exclude<EnrolmentState, 'active' | 'parked'>, lastStepId = enrolment.lastStepId): Promise<boolean> {
  return conditionalUpdate(enrolment, 'SET #state = :ended, last_step_id = :sent, ended_at = :now REMOVE gsi1pk, gsi1sk', {
    ':ended': state,
    ':sent': lastStepId,
    ':now': isoTimestamp(),
  });
}

/**
 * Take back the enrolment of a contact that has not confirmed its double opt-in (it joined a segment
 * while pending): the item goes, so the contact is enrolled afresh once it confirms. False when
 * another run moved the enrolment first.
 */
export function withdrawEnrolment(enrolment: Enrolment): Promise<boolean> {
  const condition = unchangedCondition(enrolment);
  return conditionHeld(
    deleteItem({
      Key: enrolment.key,
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: condition.values,
    }),
  );
}

/** Leave an enrolment due: index it again at `now`, so the next run retries it. */
export async function keepDue(enrolment: Enrolment): Promise<boolean> {
  const index = await dueIndexKey(enrolment.accountId, enrolment.automationUtr, enrolment.contactId, enrolment.dueAt, currentTime());
  return conditionalUpdate(enrolment, 'SET gsi1pk = :gpk, gsi1sk = :gsk', { ':gpk': index.gsi1pk, ':gsk': index.gsi1sk });
}

/**
 * Take a due enrolment of an automation that is not live out of the due index, in one transaction
 * with a check that the automation is still not live: set-live writes the status before it resumes
 * parked enrolments, so an enrolment is either parked before that (and resumed) or stays due.
 */
export async function parkEnrolment(enrolment: Enrolment): Promise<boolean> {
  const condition = unchangedCondition(enrolment);
  return committed(
    transactWrite([
      {
        ConditionCheck: {
          Key: automationKey(enrolment.accountId, enrolment.automationUtr),
          ConditionExpression: 'attribute_exists(pk) AND #status <> :live',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':live': liveStatus },
        },
      },
      {
        Update: {
          Key: enrolment.key,
          UpdateExpression: 'SET #state = :parked REMOVE gsi1pk, gsi1sk',
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ...condition.values, ':parked': 'parked' },
        },
      },
    ]),
  );
}

/**
 * Put an automation's parked enrolments back in the due index (set-live; steps overdue meanwhile fall
 * due now): those among the next `limit` of an automation after sort key `after` (null:
 * from the first); answers how many resumed and the last key read (null when none is left after it).
 */
export async function resumeParkedEnrolmentsPage(
  accountId: number,
  automationUtr: string,
  after: string | null,
  limit = 500,
): Promise<{ read: number; resumed: number; last: string | null }> {
  const partitions = enrolmentPartitions(accountId, automationUtr);
  // The shards and the old partition merged in contact id order, so `after` resumes a whole pass.
  const merge = new ShardMerge<Item>(
    partitions.length,
    (item) => String(item.sk),
    async (shard, from, size) => {
      const page = await queryPageAfter({ partition: partitions[shard] as string, after: from, limit: size });
      return { items: page.items, more: page.next !== undefined };
    },
    after ?? undefined,
  );
  const page = { items: await merge.take(limit, pageReadSize) };
  const parked = page.items.map(toEnrolment).filter((enrolment) => enrolment.state === 'parked');
  const now = currentTime();
  let resumed = 0;
  await inParallel(parked, writeConcurrency, async (enrolment) => {
    const index = await dueIndexKey(accountId, automationUtr, enrolment.contactId, enrolment.dueAt, now);
    if (await conditionalUpdate(enrolment, 'SET #state = :active, gsi1pk = :gpk, gsi1sk = :gsk', { ':active': 'active', ':gpk': index.gsi1pk, ':gsk': index.gsi1sk })) resumed++;
  });
  const last = page.items.at(-1);
  return { read: page.items.length, resumed, last: page.items.length < limit || last === undefined ? null : String(last.sk) };
}

/** Delete every enrolment of an automation (the automation is being deleted), 25 per BatchWriteItem. */
export async function deleteEnrolments(accountId: number, automationUtr: string): Promise<number> {
  let deleted = 0;
  for (const partition of enrolmentPartitions(accountId, automationUtr)) {
    const items = await queryAll({ partition });
    await batchWriteAll(items.map(deleteRequest), { concurrency: writeConcurrency });
    deleted += items.length;
  }
  return deleted;
}
