// Write-sharded counters: an owner's counts kept in small items of their own, each in a partition of
// its own, every count added atomically to one shard chosen at random and the shards summed when read,
// so counting never rewrites the owner's record (nor its index entries) and heats no item or partition.
import type { Key } from './keys';
import { shardPartition } from './keys';
import { isConditionFailure, updateItem, type Item } from './records';
import { cancellationCodes, transactWrite, type TransactionAction } from './transactions';

/**
 * Shards of one owner's counters. At 1,000 counted events a second on one owner (a delivery and an
 * open a mail at 500 mails a second), a shard takes about 125 write units a second of the 1,000 a
 * partition allows.
 */
export const counterShards = 8;

/** The sort key of every counter shard: its partition alone names it. */
const shardSortKey = 'COUNTERS';

/** One shard of the counters whose partitions start with `partition` (`<partition>#<shard>`). */
export function counterShardKey(partition: string, shard: number): Key {
  return { pk: shardPartition(partition, shard), sk: shardSortKey };
}

/** Every shard key of the counters whose partitions start with `partition`. */
export function counterShardKeys(partition: string, shards = counterShards): Key[] {
  return Array.from({ length: shards }, (_, shard) => counterShardKey(partition, shard));
}

/** The shard a count goes to: any of them, at random, so concurrent counts spread evenly. */
export function randomShard(shards = counterShards): number {
  return Math.floor(Math.random() * shards);
}

/** One owner's counter shards, and what a shard made on demand needs. */
export interface CounterSet {
  /** Every shard's key, in shard order. */
  keys: readonly Key[];
  /** What a shard carries besides its key and counts (its entity, its owner's name). */
  attributes: Item;
  /**
   * The check, in the transaction that makes a missing shard, that its owner still takes counts;
   * undefined when the owner is gone already. Shards are never made for a deleted owner.
   */
  ownerCheck(): Promise<NonNullable<TransactionAction['ConditionCheck']> | undefined>;
}

/** An update action whose key is known. */
export type CounterUpdate = TransactionAction & { Update: NonNullable<TransactionAction['Update']> };

/** `ADD` of every non-zero count; undefined when nothing is counted. */
function addExpression(counts: Readonly<Record<string, number | undefined>>): Pick<NonNullable<TransactionAction['Update']>, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> | undefined {
  const entries = Object.entries(counts).filter(([, by]) => by !== undefined && by !== 0);
  if (entries.length === 0) return undefined;
  return {
    UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, by], i) => [`:c${i}`, by])),
  };
}

/**
 * The counts added to a random shard, as an update (alone or in a transaction); undefined when nothing
 * is counted. Only an existing shard is counted on, so counting never recreates a deleted owner's.
 */
export function counterShardUpdate(set: Pick<CounterSet, 'keys'>, counts: Readonly<Record<string, number | undefined>>): CounterUpdate | undefined {
  const expression = addExpression(counts);
  if (!expression) return undefined;
  const key = set.keys[randomShard(set.keys.length)] as Key;
  return { Update: { Key: key, ConditionExpression: 'attribute_exists(pk)', ...expression } };
}

/** Make every missing shard of a set, in the transaction that makes its owner or starts it counting (an existing shard keeps its counts). */
export function counterShardCreations(set: Pick<CounterSet, 'keys' | 'attributes'>): TransactionAction[] {
  const names = Object.keys(set.attributes);
  return set.keys.map((key) => ({
    Update: {
      Key: key,
      UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:a${i}`, set.attributes[name]])),
    },
  }));
}

/** The deletes of a set's shards, for the transaction (or batch) that deletes its owner. */
export function counterShardDeletes(set: Pick<CounterSet, 'keys'>): TransactionAction[] {
  return set.keys.map((key) => ({ Delete: { Key: key } }));
}

/**
 * Make one missing shard while its owner takes counts: false when the owner is gone. Made on the
 * first count that finds it missing, so an owner needs no shards until it is counted on (or was
 * stored before its counters were sharded).
 */
export async function ensureCounterShard(set: CounterSet, key: Key): Promise<boolean> {
  const check = await set.ownerCheck();
  if (!check) return false;
  try {
    await transactWrite([{ ConditionCheck: check }, { Put: { Item: { ...key, ...set.attributes }, ConditionExpression: 'attribute_not_exists(pk)' } }]);
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    // Gone meanwhile; or the shard was made by another caller, or this one met another's transaction: count again.
    return codes[0] !== 'ConditionalCheckFailed';
  }
}

const maxConflictRetries = 8;

/** Add the counts to one shard atomically; false when the owner no longer takes counts (nothing is recreated). */
export async function addToCounterShards(set: CounterSet, counts: Readonly<Record<string, number | undefined>>): Promise<boolean> {
  const update = counterShardUpdate(set, counts);
  if (!update) return true;
  const key = update.Update.Key as Key;
  for (let attempt = 0; ; attempt++) {
    try {
      await updateItem(update.Update);
      return true;
    } catch (error) {
      const conflict = (error as { name?: string }).name === 'TransactionConflictException';
      if ((!isConditionFailure(error) && !conflict) || attempt >= maxConflictRetries) throw error;
      // No shard there yet: made (while the owner takes counts) and counted again.
      if (isConditionFailure(error) && !(await ensureCounterShard(set, key))) return false;
      // An owner being started or settled holds the shard in its transaction for a moment; callers
      // making the same missing shard at once meet on their owner's check: each waits a little.
      if (conflict || attempt > 0) await new Promise((resume) => setTimeout(resume, Math.min(500, 10 * 2 ** attempt + Math.random() * 20)));
    }
  }
}

/** Each named counter summed over the shards, starting from what the owner held before it had shards (`legacy`). */
export function sumCounterShards<Name extends string>(names: readonly Name[], legacy: Item, shards: readonly Item[]): Record<Name, number> {
  return Object.fromEntries(names.map((name) => [name, shards.reduce((sum, shard) => sum + Number(shard[name] ?? 0), Number(legacy[name] ?? 0))])) as Record<Name, number>;
}
