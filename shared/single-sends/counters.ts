// The statistics counters of a single send: write-sharded over small items of their own (keys.ts), each
// count added atomically to one shard chosen at random and the shards summed when read, so counting
// never rewrites the send's record nor heats one partition. A send stored before the counters had
// items of their own keeps the counts its record held (copied to its state item when adopted): they
// are added to the shards' sum. A deleted send's counts are dropped, never recreated.
import { batchGetAll } from '../table/batch';
import type { Key } from '../table/keys';
import { getItem, isConditionFailure, updateItem, type Item } from '../table/records';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';
import { counterShards, singleSendCounterKey, singleSendCounterKeys, singleSendKey, singleSendStateKey } from './keys';
import { singleSendCounterNames, type SingleSendCounter } from './record';
import { getStateItem, legacyCountsAttribute, readSendState } from './state';
import type { AbCounter } from './ab-test';

export { statisticsOnlyCounters, type SingleSendCounter } from './record';

export type SingleSendCounts = Record<SingleSendCounter, number>;

/** What a count may add to: the send's counters, and an A/B test's counters of one subject. */
export type CountChanges = Partial<Record<SingleSendCounter | AbCounter, number>>;

const entity = 'single-send-counters';

const maxConflictRetries = 8;

/** The counts a send's record or state holds from before its counters were sharded (a state item's copy wins). */
function legacyCounts(record: Item | undefined, state: Item | undefined): Item {
  if (state) return (state[legacyCountsAttribute] as Item | undefined) ?? {};
  return record ?? {};
}

/** The counters of one send: its legacy counts plus every shard's. */
export function sumCounters(legacy: Item, shards: readonly Item[]): SingleSendCounts {
  return Object.fromEntries(
    singleSendCounterNames.map((name) => [name, shards.reduce((sum, shard) => sum + Number(shard[name] ?? 0), Number(legacy[name] ?? 0))]),
  ) as SingleSendCounts;
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

function randomShard(): number {
  return Math.floor(Math.random() * counterShards);
}

function addExpression(counts: CountChanges): Pick<NonNullable<TransactionAction['Update']>, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> | undefined {
  const entries = Object.entries(counts).filter(([, by]) => by !== undefined && by !== 0);
  if (entries.length === 0) return undefined;
  return {
    UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, by], i) => [`:c${i}`, by])),
  };
}

/** The shard a count goes to (random), as a transaction's update; undefined when nothing is counted. */
export function counterShardUpdate(accountId: number, utr: string, counts: CountChanges): (TransactionAction & { Update: NonNullable<TransactionAction['Update']> }) | undefined {
  const expression = addExpression(counts);
  if (!expression) return undefined;
  // Counting on a deleted send would recreate a ghost item: shards are made with their send (ensureCounterShard).
  return { Update: { Key: singleSendCounterKey(accountId, utr, randomShard()), ConditionExpression: 'attribute_exists(pk)', ...expression } };
}

function shardItem(utr: string, key: Key): Item & Key {
  return { ...key, entity, utr };
}

/** Make every shard of a send that is missing, inside the transaction that starts the send (an existing shard keeps its counts). */
export function counterShardCreations(accountId: number, utr: string): TransactionAction[] {
  return singleSendCounterKeys(accountId, utr).map((key) => ({
    Update: {
      Key: key,
      UpdateExpression: 'SET entity = :entity, utr = :utr',
      ExpressionAttributeValues: { ':entity': entity, ':utr': utr },
    },
  }));
}

/** The deletes of a send's shards, for the transaction that deletes it. */
export function counterShardDeletes(accountId: number, utr: string): TransactionAction[] {
  return singleSendCounterKeys(accountId, utr).map((key) => ({ Delete: { Key: key } }));
}

/**
 * Make one shard of a send that has none there yet (a send counted before it started, or stored before
 * counters were sharded), only while the send exists: false when it is gone.
 */
export async function ensureCounterShard(accountId: number, utr: string, key: Key): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  try {
    await transactWrite([
      { ConditionCheck: { Key: singleSendStateKey(accountId, utr), ConditionExpression: 'attribute_exists(pk)' } },
      { Put: { Item: shardItem(utr, key), ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    // Deleted meanwhile; or the shard was made by another caller, or this one met another's transaction: count again.
    return codes[0] !== 'ConditionalCheckFailed';
  }
}

/** Add to the send's statistics atomically; false when the send no longer exists (nothing is recreated). */
export async function addSingleSendCounts(accountId: number, utr: string, counts: CountChanges): Promise<boolean> {
  const update = counterShardUpdate(accountId, utr, counts);
  if (!update) return true;
  const key = update.Update.Key as Key;
  for (let attempt = 0; ; attempt++) {
    try {
      await updateItem(update.Update);
      return true;
    } catch (error) {
      const conflict = (error as { name?: string }).name === 'TransactionConflictException';
      if ((!isConditionFailure(error) && !conflict) || attempt >= maxConflictRetries) throw error;
      // No shard there yet: made (while the send exists) and counted again.
      if (isConditionFailure(error) && !(await ensureCounterShard(accountId, utr, key))) return false;
      // A send being started or settled holds the shard in its transaction for a moment.
      if (conflict) await new Promise((resume) => setTimeout(resume, Math.min(500, 10 * 2 ** attempt + Math.random() * 20)));
    }
  }
}
