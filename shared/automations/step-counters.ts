// Per-step counters of an automation: write-sharded counters of their own (keys.ts,
// table/counter-shards.ts), deleted with the step (steps.ts). The sending pipeline writes them
// (sendable.ts, for statistics/event-counts.ts); step-statistics.ts reads them for `automations/stats`.
import { batchGetAll } from '../table/batch';
import { addToCounterShards, counterShardCreations, counterShardDeletes, sumCounterShards, type CounterSet } from '../table/counter-shards';
import type { Item } from '../table/records';
import type { TransactionAction } from '../table/transactions';
import { automationStepCounterKeys, automationStepUtrKey, isUuidUtr } from './keys';

export const stepCounters = ['delivered', 'opens', 'unique_opens', 'machine_opens', 'clicks', 'unique_clicks', 'bot_clicks', 'bounces', 'complaints', 'unsubscribes'] as const;
export type StepCounter = (typeof stepCounters)[number];
export type StepCounts = Record<StepCounter, number>;

const entity = 'automation-step-counters';

/** A step's shards: made with the step, or (a step stored before it had shards) on its first count while its utr item exists. */
function counterSet(accountId: number, stepUtr: string): CounterSet {
  return {
    keys: automationStepCounterKeys(accountId, stepUtr),
    attributes: { entity, step_utr: stepUtr },
    ownerCheck: async () => ({ Key: automationStepUtrKey(accountId, stepUtr), ConditionExpression: 'attribute_exists(pk)' }),
  };
}

/** Make a new step's shards, in the transaction that makes the step. */
export function stepCounterCreations(accountId: number, stepUtr: string): TransactionAction[] {
  return counterShardCreations(counterSet(accountId, stepUtr));
}

/** The deletes of a step's shards, in the transaction that deletes the step. */
export function stepCounterDeletes(accountId: number, stepUtr: string): TransactionAction[] {
  return counterShardDeletes(counterSet(accountId, stepUtr));
}

/** Add to a step's counters atomically; false when the step no longer exists (nothing is recreated). */
export async function addStepCounts(accountId: number, stepUtr: string, deltas: Partial<StepCounts>): Promise<boolean> {
  const changes = Object.fromEntries(stepCounters.filter((name) => deltas[name] !== undefined && deltas[name] !== 0).map((name) => [name, deltas[name]]));
  if (Object.keys(changes).length === 0) return true;
  if (!isUuidUtr(stepUtr)) return false;
  return addToCounterShards(counterSet(accountId, stepUtr), changes);
}

/**
 * The counters of these steps, by utr (zeros for a step with none): each step's shards plus what its
 * utr item holds. A step counted before its counters had shards kept them on that item, where nothing
 * is added any more: read beside the shards, so a deployed stack keeps its figures across the change.
 */
export async function readStepCounts(accountId: number, stepUtrs: readonly string[]): Promise<Map<string, StepCounts>> {
  const utrs = [...new Set(stepUtrs)];
  const [legacy, shards] = await Promise.all([
    batchGetAll(utrs.map((utr) => automationStepUtrKey(accountId, utr))),
    batchGetAll(
      utrs.flatMap((utr) => automationStepCounterKeys(accountId, utr)),
      { concurrency: 4 },
    ),
  ]);
  const legacyByUtr = new Map(legacy.map((item) => [String(item.sk), item]));
  const shardsByUtr = new Map<string, Item[]>(utrs.map((utr) => [utr, []]));
  for (const shard of shards) shardsByUtr.get(String(shard.step_utr))?.push(shard);
  return new Map(utrs.map((utr) => [utr, sumCounterShards(stepCounters, legacyByUtr.get(utr) ?? {}, shardsByUtr.get(utr) ?? [])]));
}
