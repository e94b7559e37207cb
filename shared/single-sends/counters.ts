// The statistics counters of a single send: write-sharded over small items of their own (keys.ts, with
// table/counter-shards.ts), each count added atomically to one shard chosen at random and the shards summed when read, so counting
// never rewrites the send's record nor heats one partition. A send stored before the counters had
// items of their own keeps the counts its record held (copied to its state item when adopted): they
// are added to the shards' sum. A deleted send's counts are dropped, never recreated.
import { batchGetAll } from '../table/batch';
import {
  addToCounterShards,
  counterShardCreations as shardCreations,
  counterShardDeletes as shardDeletes,
  counterShardUpdate as shardUpdate,
  ensureCounterShard as ensureShard,
  sumCounterShards,
  type CounterSet,
  type CounterUpdate,
} from '../table/counter-shards';
import type { Key } from '../table/keys';
import { getItem, type Item } from '../table/records';
import type { TransactionAction } from '../table/transactions';
import { singleSendCounterKeys, singleSendKey, singleSendStateKey } from './keys';
import { singleSendCounterNames, type SingleSendCounter } from './record';
import { getStateItem, legacyCountsAttribute, readSendState } from './state';
import type { AbCounter } from './ab-test';

export { statisticsOnlyCounters, type SingleSendCounter } from './record';

export type SingleSendCounts = Record<SingleSendCounter, number>;

/** What a count may add to: the send's counters, and an A/B test's counters of one subject. */
export type CountChanges = Partial<Record<SingleSendCounter | AbCounter, number>>;

const entity = 'single-send-counters';

/** A send's counter shards: made with the send's start, or on demand while its state item exists. */
function counterSet(accountId: number, utr: string): CounterSet {
  return {
    keys: singleSendCounterKeys(accountId, utr),
    attributes: { entity, utr },
    ownerCheck: async () => ((await readSendState(accountId, utr)) ? { Key: singleSendStateKey(accountId, utr), ConditionExpression: 'attribute_exists(pk)' } : undefined),
  };
}

/** The counts a send's record or state holds from before its counters were sharded (a state item's copy wins). */
function legacyCounts(record: Item | undefined, state: Item | undefined): Item {
  if (state) return (state[legacyCountsAttribute] as Item | undefined) ?? {};
  return record ?? {};
}

/** The counters of one send: its legacy counts plus every shard's. */
export function sumCounters(legacy: Item, shards: readonly Item[]): SingleSendCounts {
  return sumCounterShards(singleSendCounterNames, legacy, shards);
}

/** The shards of these sends, by utr (a send without shards has an empty list). */
export async function readCounterShards(accountId: number, utrs: readonly string[], consistent = false): Promise<Map<string, Item[]>> {
  const keys = [...new Set(utrs)].flatMap((utr) => singleSendCounterKeys(accountId, utr));
  const found = await batchGetAll(keys, { concurrency: 4, consistentRead: consistent });
  const byUtr = new Map<string, Item[]>(utrs.map((utr) => [utr, []]));
  for (const shard of found) byUtr.get(String(shard.utr))?.push(shard);
  return byUtr;
}

/** The counters of a send as read with its record and state item (either may be absent for a legacy send). */
export function countersOf(record: Item | undefined, state: Item | undefined, shards: readonly Item[]): SingleSendCounts {
  return sumCounters(legacyCounts(record, state), shards);
}

/** Every statistics counter of the send (0 where nothing was counted yet); undefined when there is no such send. */
export async function getSingleSendCounters(accountId: number, utr: string, consistent = false): Promise<SingleSendCounts | undefined> {
  const [state, shards] = await Promise.all([getStateItem(accountId, utr, consistent), readCounterShards(accountId, [utr], consistent)]);
  if (state) return countersOf(undefined, state, shards.get(utr) ?? []);
  // A send stored before it had a state item: its counts are on its record (only the counters are read back).
  const record = await getItem(singleSendKey(accountId, utr), { consistent, projection: ['pk', ...singleSendCounterNames] });
  if (!record) return undefined;
  return countersOf(record, undefined, shards.get(utr) ?? []);
}

/** The shard a count goes to (random), as a transaction's update; undefined when nothing is counted. */
export function counterShardUpdate(accountId: number, utr: string, counts: CountChanges): CounterUpdate | undefined {
  // Counting on a deleted send would recreate a ghost item: shards are made with their send (ensureCounterShard).
  return shardUpdate({ keys: singleSendCounterKeys(accountId, utr) }, counts);
}

/** Make every shard of a send that is missing, inside the transaction that starts the send (an existing shard keeps its counts). */
export function counterShardCreations(accountId: number, utr: string): TransactionAction[] {
  return shardCreations({ keys: singleSendCounterKeys(accountId, utr), attributes: { entity, utr } });
}

/** The deletes of a send's shards, for the transaction that deletes it. */
export function counterShardDeletes(accountId: number, utr: string): TransactionAction[] {
  return shardDeletes({ keys: singleSendCounterKeys(accountId, utr) });
}

/**
 * Make one shard of a send that has none there yet (a send counted before it started, or stored before
 * counters were sharded), only while the send exists: false when it is gone.
 */
export function ensureCounterShard(accountId: number, utr: string, key: Key): Promise<boolean> {
  return ensureShard(counterSet(accountId, utr), key);
}

/** Add to the send's statistics atomically; false when the send no longer exists (nothing is recreated). */
export function addSingleSendCounts(accountId: number, utr: string, counts: CountChanges): Promise<boolean> {
  return addToCounterShards(counterSet(accountId, utr), counts);
}
