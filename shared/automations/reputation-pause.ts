// A live automation paused for its reputation (too many bounces or complaints, judged in
// shared/feedback/reputation.ts): the ordinary paused status (its due enrolments are parked where they
// are, runner.ts) plus `paused_reason`, set by one conditional write so exactly one caller pauses it
// (and mails the notice). Setting it live again clears the reason and records the counters it resumed
// at (`reputation_base`): its rates are judged again on what it mails afterwards.
import { reputationCountsOf, type ReputationCounts } from '../ledger/sendable';
import { conditionHeld, getItem, getItems, updateItem } from '../table/records';
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
  const items = await getItems(steps.map((step) => automationStepUtrKey(accountId, step.utr)));
  return items.reduce((sum, item) => sum + Number(item.complaints ?? 0), 0);
}

/** The automation's status, pause reason and counters; undefined when it is gone or being deleted. */
export async function getAutomationReputationView(accountId: number, automationUtr: string): Promise<AutomationReputationView | undefined> {
  if (!isUuidUtr(automationUtr)) return undefined;
  const item = await getItem(automationKey(accountId, automationUtr), {
    consistent: true,
    projection: ['pk', 'status', 'closing', 'total_delivered', 'total_bounces', reasonAttribute, baseAttribute],
  });
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
  const item = await getItem(automationKey(accountId, automationUtr), { projection: ['status', reasonAttribute] });
  const reason = item?.[reasonAttribute];
  return Number(item?.status) === automationStatus.paused && typeof reason === 'string' ? reason : undefined;
}

/** Pause a live automation, saying why; true for the one caller that paused it. */
export async function pauseAutomationForReputation(accountId: number, automationUtr: string, reason: string): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: automationKey(accountId, automationUtr),
      UpdateExpression: 'SET #status = :paused, #reason = :reason, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(closing) AND #status = :live',
      ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute },
      ExpressionAttributeValues: { ':paused': automationStatus.paused, ':live': automationStatus.live, ':reason': reason, ':now': isoTimestamp() },
    }),
  );
}

/**
 * Before a paused automation is set live: drop its pause reason and record the counters it resumes
 * at. Does nothing when it was not paused for its reputation. Called before the status changes, so a
 * bounce counted in between finds it still paused (never judged against the old base while live).
 */
export async function clearReputationPause(accountId: number, automationUtr: string): Promise<void> {
  const view = await getAutomationReputationView(accountId, automationUtr);
  if (!view?.pausedReason) return;
  // Set live or cleared by another call meanwhile: nothing left to clear.
  await conditionHeld(
    updateItem({
      Key: automationKey(accountId, automationUtr),
      UpdateExpression: 'SET #base = :base REMOVE #reason',
      ConditionExpression: '#status = :paused AND attribute_exists(#reason)',
      ExpressionAttributeNames: { '#status': 'status', '#reason': reasonAttribute, '#base': baseAttribute },
      ExpressionAttributeValues: { ':base': view.counts, ':paused': automationStatus.paused },
    }),
  );
}
