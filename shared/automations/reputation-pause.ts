// A live automation paused for its reputation (too many bounces or complaints, judged in
// shared/feedback/reputation.ts): the ordinary paused status (its due enrolments are parked where they
// are, runner.ts) plus `paused_reason`, set by one conditional write so exactly one caller pauses it
// (and mails the notice). Setting it live again clears the reason and records the counters it resumed
// at (`reputation_base`): its rates are judged again on what it mails afterwards.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { reputationCountsOf, type ReputationCounts } from '../ledger/sendable';
import { batchGetAll } from '../table/batch';
import { db, tableName } from '../table/client';
import { isConditionFailure } from '../table/records';
import { isoTimestamp } from '../time';
import { automationKey, automationStepUtrKey } from './keys';
import { automationStatus } from './repository';
import { isUuidUtr, listAutomationSteps } from './steps';

/** What the pause check reads of an automation. */
export interface AutomationReputationView {
  live: boolean;
  /** Why it was paused for its reputation; undefined when it was not (or was set live since). */
  pausedReason: string | undefined;
  counts: ReputationCounts;
  base: ReputationCounts;
}

const reasonAttribute = 'paused_reason';
const baseAttribute = 'reputation_base';

/**
 * Complaints are counted per step only (the spec's automation has no complaint total): their sum over
 * the automation's steps. A deleted step takes its complaints along; the rate can only fall by it.
 */
async function complaintsOf(accountId: number, automationUtr: string): Promise<number> {
  const steps = await listAutomationSteps(accountId, automationUtr);
  const items = await batchGetAll(steps.map((step) => automationStepUtrKey(accountId, step.utr)));
  return items.reduce((sum, item) => sum + Number(item.complaints ?? 0), 0);
}

/** The automation's status, pause reason and counters; undefined when it is gone or being deleted. */
export async function getAutomationReputationView(accountId: number, automationUtr: string): Promise<AutomationReputationView | undefined> {
  if (!isUuidUtr(automationUtr)) return undefined;
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: automationKey(accountId, automationUtr),
      ConsistentRead: true,
      ProjectionExpression: 'pk, #status, closing, total_delivered, total_bounces, #reason, #base',
      ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute, '#base': baseAttribute },
    }),
  );
  const item = result.Item;
  if (!item || item.closing !== undefined) return undefined;
  const status = Number(item.status);
  return {
    live: status === automationStatus.live,
    pausedReason: status === automationStatus.paused && typeof item[reasonAttribute] === 'string' ? (item[reasonAttribute] as string) : undefined,
    counts: { delivered: Number(item.total_delivered ?? 0), bounces: Number(item.total_bounces ?? 0), complaints: await complaintsOf(accountId, automationUtr) },
    base: reputationCountsOf(item[baseAttribute]),
  };
}

/** Why a paused automation was paused for its reputation (its details show it); undefined otherwise. */
export async function reputationPauseReason(accountId: number, automationUtr: string): Promise<string | undefined> {
  if (!isUuidUtr(automationUtr)) return undefined;
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: automationKey(accountId, automationUtr),
      ProjectionExpression: '#status, #reason',
      ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute },
    }),
  );
  const reason = result.Item?.[reasonAttribute];
  return Number(result.Item?.status) === automationStatus.paused && typeof reason === 'string' ? reason : undefined;
}

/** Pause a live automation, saying why; true for the one caller that paused it. */
export async function pauseAutomationForReputation(accountId: number, automationUtr: string, reason: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: automationKey(accountId, automationUtr),
        UpdateExpression: 'SET #status = :paused, #reason = :reason, updated_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(closing) AND #status = :live',
        ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute },
        ExpressionAttributeValues: { ':paused': automationStatus.paused, ':live': automationStatus.live, ':reason': reason, ':now': isoTimestamp() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Before a paused automation is set live: drop its pause reason and record the counters it resumes
 * at. Does nothing when it was not paused for its reputation. Called before the status changes, so a
 * bounce counted in between finds it still paused (never judged against the old base while live).
 */
export async function clearReputationPause(accountId: number, automationUtr: string): Promise<void> {
  const view = await getAutomationReputationView(accountId, automationUtr);
  if (!view?.pausedReason) return;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: automationKey(accountId, automationUtr),
        UpdateExpression: 'SET #base = :base REMOVE #reason',
        ConditionExpression: '#status = :paused AND attribute_exists(#reason)',
        ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute, '#base': baseAttribute },
        ExpressionAttributeValues: { ':base': view.counts, ':paused': automationStatus.paused },
      }),
    );
  } catch (error) {
    // Set live or cleared by another call meanwhile: nothing left to clear.
    if (!isConditionFailure(error)) throw error;
  }
}
