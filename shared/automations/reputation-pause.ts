// A live automation paused for its reputation (too many bounces or complaints, judged in
// shared/feedback/reputation.ts): the ordinary paused status (its due enrolments are parked where they
// are, runner.ts) plus `paused_reason`, set by one conditional write so exactly one caller pauses it
// (and mails the notice). Setting it live again clears the reason and records the counters it resumed
// at (`reputation_base`): its rates are judged again on what it mails afterwards.
import { reputationCountsOf, type ReputationCounts } from '../ledger/sendable';
import { conditionHeld, getItem, updateItem } from '../table/records';
import { isoTimestamp } from '../time';
import { automationKey } from './keys';
import { automationStatus } from './repository';
import { readStepCounts } from './step-counters';
import { isUuidUtr, listAutomationSteps } from './steps';
import { automationTotalsOf } from './totals';

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
  const counts = await readStepCounts(accountId, steps.map((step) => step.utr));
  return [...counts.values()].reduce((sum, step) => sum + step.complaints, 0);
}

/** The automation's status, pause reason and counters; undefined when it is gone or being deleted. */
export async function getAutomationReputationView(accountId: number, automationUtr: string): Promise<AutomationReputationView | undefined> {
  if (!isUuidUtr(automationUtr)) return undefined;
  const item = await getItem(automationKey(accountId, automationUtr), {
    consistent: true,
    projection: ['pk', 'status', 'closing', 'total_triggered', 'total_delivered', 'total_bounces', reasonAttribute, baseAttribute],
  });
  if (!item || item.closing !== undefined) return undefined;
  const status = Number(item.status);
  // The item's own totals are those counted before they had shards: summed with the shards'.
  const [totals, complaints] = await Promise.all([automationTotalsOf(accountId, [{ ...item, utr: automationUtr }], true), complaintsOf(accountId, automationUtr)]);
  const { total_triggered: triggered, total_delivered: delivered, total_bounces: bounces } = totals.get(automationUtr) ?? { total_triggered: 0, total_delivered: 0, total_bounces: 0 };
  return {
    live: status === automationStatus.live,
    pausedReason: status === automationStatus.paused && typeof item[reasonAttribute] === 'string' ? (item[reasonAttribute] as string) : undefined,
    counts: { delivered, bounces, complaints, triggered },
    base: reputationCountsOf(item[baseAttribute]),
  };
}

/**
 * Whether the automation is live, from its status alone (strongly consistent; undefined when it is
 * gone or being deleted): the runner asks about every second while it mails a step, so no counter is read.
 */
export async function automationIsLive(accountId: number, automationUtr: string): Promise<boolean | undefined> {
  if (!isUuidUtr(automationUtr)) return undefined;
  const item = await getItem(automationKey(accountId, automationUtr), { consistent: true, projection: ['pk', 'status', 'closing'] });
  if (!item || item.closing !== undefined) return undefined;
  return Number(item.status) === automationStatus.live;
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
