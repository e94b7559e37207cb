// An automation's totals (the spec's `total_*`): write-sharded counters of their own (keys.ts,
// table/counter-shards.ts), added to by every mail and event of its steps and summed when read.
import { batchGetAll } from '../table/batch';
import { addToCounterShards, counterShardCreations, counterShardDeletes, sumCounterShards, type CounterSet } from '../table/counter-shards';
import type { Item } from '../table/records';
import type { TransactionAction } from '../table/transactions';
import { automationCounterKeys, automationKey } from './keys';

export const automationTotals = ['total_triggered', 'total_delivered', 'total_unique_opens', 'total_opens', 'total_bounces', 'total_unsubscribe'] as const;
export type AutomationTotal = (typeof automationTotals)[number];
export type AutomationTotals = Record<AutomationTotal, number>;
export type AutomationTotalsChange = Partial<AutomationTotals>;

const entity = 'automation-counters';

/**
 * An automation's shards: made with it, or (an automation stored before it had shards) on its first
 * count while it exists and is not being deleted.
 */
function counterSet(accountId: number, automationUtr: string): CounterSet {
  return {
    keys: automationCounterKeys(accountId, automationUtr),
    attributes: { entity, automation_utr: automationUtr },
    ownerCheck: async () => ({ Key: automationKey(accountId, automationUtr), ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(closing)' }),
  };
}

/**
 * Add to an automation's statistics atomically (the sending pipeline's counters). False when the
 * automation no longer exists: a late event for a deleted automation changes nothing.
 */
export function addAutomationTotals(accountId: number, automationUtr: string, deltas: AutomationTotalsChange): Promise<boolean> {
  return addToCounterShards(counterSet(accountId, automationUtr), deltas);
}

/**
 * The totals of these automations' items, by utr: each item's own `total_*` plus its shards'. An
 * automation stored before its totals had shards keeps what its item held (no count is written there
 * any more), so a deployed stack keeps its figures across the change.
 */
export async function automationTotalsOf(accountId: number, items: readonly Item[], consistent = false): Promise<Map<string, AutomationTotals>> {
  const utrs = [...new Set(items.map((item) => String(item.utr)))];
  const shards = await batchGetAll(
    utrs.flatMap((utr) => automationCounterKeys(accountId, utr)),
    { concurrency: 4, consistentRead: consistent },
  );
  const byUtr = new Map<string, Item[]>(utrs.map((utr) => [utr, []]));
  for (const shard of shards) byUtr.get(String(shard.automation_utr))?.push(shard);
  return new Map(items.map((item) => [String(item.utr), sumCounterShards(automationTotals, item, byUtr.get(String(item.utr)) ?? [])]));
}

/** Make a new automation's shards, in the transaction that stores it. */
export function automationTotalsCreations(accountId: number, automationUtr: string): TransactionAction[] {
  return counterShardCreations(counterSet(accountId, automationUtr));
}

/** The deletes of an automation's shards, for the transaction that deletes its item. */
export function automationTotalsDeletes(accountId: number, automationUtr: string): TransactionAction[] {
  return counterShardDeletes({ keys: automationCounterKeys(accountId, automationUtr) });
}
