// Per-step counters of an automation: atomic counters on each step's utr item (the item that finds a
// step by the utr its mails' send reference carries), so they go when the step goes. The sending
// pipeline writes them (sendable.ts, for statistics/event-counts.ts); step-statistics.ts reads them for `automations/stats`.
import { conditionHeld, updateItem } from '../table/records';
import { automationStepUtrKey } from './keys';
import { isUuidUtr } from './steps';

export const stepCounters = ['delivered', 'opens', 'unique_opens', 'machine_opens', 'clicks', 'unique_clicks', 'bot_clicks', 'bounces', 'complaints', 'unsubscribes'] as const;
export type StepCounter = (typeof stepCounters)[number];
export type StepCounts = Record<StepCounter, number>;

/** Add to a step's counters atomically; false when the step no longer exists (nothing is recreated). */
export async function addStepCounts(accountId: number, stepUtr: string, deltas: Partial<StepCounts>): Promise<boolean> {
  const changes = stepCounters.filter((name) => deltas[name] !== undefined && deltas[name] !== 0);
  if (changes.length === 0) return true;
  if (!isUuidUtr(stepUtr)) return false;
  return conditionHeld(
    updateItem({
      Key: automationStepUtrKey(accountId, stepUtr),
      UpdateExpression: `ADD ${changes.map((_, i) => `#s${i} :s${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(changes.map((name, i) => [`#s${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(changes.map((name, i) => [`:s${i}`, deltas[name]])),
    }),
  );
}
