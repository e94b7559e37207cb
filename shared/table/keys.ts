// Key primitives: every account key is `A#<account>#<entity>` plus an id or name.

export interface Key {
  pk: string;
  sk: string;
}

/** Ids sort as text in DynamoDB; zero-padding keeps them in numeric order. */
export function idSortKey(id: number): string {
  return String(id).padStart(12, '0');
}

/** The partition holding one kind of record of one account. */
export function entityPartition(accountId: number, entity: string): string {
  return `A#${accountId}#${entity}`;
}

/** The item of one record of one kind, by its integer id. */
export function entityKey(accountId: number, entity: string, id: number): Key {
  return { pk: entityPartition(accountId, entity), sk: idSortKey(id) };
}

/**
 * One shard of a write-sharded partition: `<partition>#<shard>`. A hot partition spread over shards
 * takes each shard's own throughput (DynamoDB allows about 1,000 WCU/s and 3,000 RCU/s per partition).
 */
export function shardPartition(partition: string, shard: number): string {
  return `${partition}#${shard}`;
}

/** 32-bit FNV-1a of the text's UTF-8 bytes: a small, stable hash (the same in any language). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
