// Keys of single sends, their id index and their dispatch state.
import { counterShardKeys } from '../table/counter-shards';
import { type Key, entityPartition, idSortKey } from '../table/keys';

// Single sends

export const SINGLE_SEND = 'single-send';

/** A single send's own item, by its utr: every single-send operation names the send by utr. */
export function singleSendKey(accountId: number, utr: string): Key {
  return { pk: singleSendPartition(accountId), sk: utr };
}

/** The partition holding an account's single-send items only (keyed by utr; the list reads the id index). */
export function singleSendPartition(accountId: number): string {
  return entityPartition(accountId, SINGLE_SEND);
}

/** The gsi1 keys that order an account's single sends by id and find one by its integer id (bulk delete). */
export function singleSendIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: singleSendIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}

/** The gsi1 partition listing an account's single sends in id order. */
export function singleSendIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${SINGLE_SEND}-by-id`);
}

/** A single send's dispatch progress (cursor, fan-out and settlement counts), apart from the API record. */
export function singleSendDispatchKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-dispatch'), sk: utr };
}

/**
 * A single send's state (status, wait, failure, completion, reputation base, content version) in a
 * small item of its own, off gsi1: the pipeline reads and writes it, never the record with the design.
 */
export function singleSendStateKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-state'), sk: utr };
}

/**
 * Write shards of a send's statistics counters (table/counter-shards.ts): every counted event adds to
 * one of them, chosen at random, and a read sums them. At 1,000 mails a second with a delivery and an
 * open each, a shard takes about 250 write units a second of the 1,000 a partition allows.
 */
export function singleSendCounterKeys(accountId: number, utr: string): Key[] {
  return counterShardKeys(entityPartition(accountId, `single-send-counters#${utr}`));
}

// Sends waiting for their sender's verification, by sender: the confirmation of a sender finds them here

/**
 * The partition listing the sends that wait for one sender to be verified (one small item per send,
 * keyed by its utr), so confirming a sender reads only its own waiting sends, never the account's all.
 */
export function senderWaitPartition(accountId: number, senderId: number): string {
  return entityPartition(accountId, `single-send-sender-wait#${idSortKey(senderId)}`);
}

export function senderWaitKey(accountId: number, senderId: number, utr: string): Key {
  return { pk: senderWaitPartition(accountId, senderId), sk: utr };
}

// The stall watch: a sparse gsi1 index of running sends by the time they were last heard of

/** Write shards of the stall watch: every running send's entry is in one of them. */
export const stallWatchShards = 4;

/**
 * A running send's entry in the stall watch: a small item of its own, written when the send starts,
 * when the watchdog looks at it and when it ends. Apart from the dispatch item, which every page and
 * settled batch updates: an item in gsi1 (its projection is ALL) has its index entry rewritten by
 * every update. A send whose dispatch began before has its entry on its dispatch item.
 */
export function singleSendWatchKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-watch'), sk: utr };
}

/**
 * The gsi1 partition of one shard of the stall watch. Global, not per account: the watchdog looks at
 * every account's running sends with one Query per shard.
 */
export function stallWatchPartition(shard: number): string {
  return `SINGLE-SEND-STALL-WATCH#${shard}`;
}

/** The shard of a send's watch entry, from its utr (a random UUID: its first hex digits spread evenly). */
export function stallWatchShard(utr: string): number {
  return Number.parseInt(utr.slice(0, 2), 16) % stallWatchShards || 0;
}

/** The gsi1 sort key of a watched send: when it was last heard of, then whose send it is. */
export function stallWatchSortKey(heardAt: Date, accountId: number, utr: string): string {
  return `${heardAt.toISOString()}#${accountId}#${utr}`;
}

/** The account and utr a watch sort key names. */
export function parseStallWatchSortKey(sortKey: string): { heardAt: string; accountId: number; utr: string } {
  const [heardAt = '', accountId = '', utr = ''] = sortKey.split('#');
  return { heardAt, accountId: Number(accountId), utr };
}
