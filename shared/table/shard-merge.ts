// Reading a write-sharded partition in one sort-key order: a k-way merge of its shards, each read in
// sort-key order from where it was left. Pure of DynamoDB (the shard reads are handed in), so the
// merge itself is unit-tested on its own.

/** One read of a shard: its next items in ascending key order, and whether it may hold more after them. */
export interface ShardRead<T> {
  items: T[];
  more: boolean;
}

/** Read up to `limit` items of `shard` whose key is greater than `after` (from the start when undefined). */
export type ReadShard<T> = (shard: number, after: string | undefined, limit: number) => Promise<ShardRead<T>>;

/** How many items to ask a shard for, given how many the current `take` still needs and how many shards may still hold some. */
export type ReadSize = (needed: number, liveShards: number) => number;

/** Items a page read asks each shard for beyond its even share, so a little skew needs no second round. */
export const readAhead = 2;

/**
 * For one bounded page: each shard's even share of what is still needed, plus `readAhead`, never more
 * than needed (a page of 1,000 over 16 round-robin shards: 65 items a shard, one round of Queries).
 */
export const pageReadSize: ReadSize = (needed, liveShards) => Math.min(needed, Math.ceil(needed / Math.max(1, liveShards)) + readAhead);

interface Shard<T> {
  /** Items read and not yet taken, in key order: `items[at..]`. */
  items: T[];
  at: number;
  /** The key of the last item read from the shard (or the merge's start): the next read starts after it. */
  after: string | undefined;
  /** The shard has been read to its end. */
  exhausted: boolean;
}

/**
 * A k-way merge over `shards` shards whose items have unique keys, ordered as strings (ids are
 * zero-padded sort keys); a key found in two shards is taken once. It takes an item only when every shard not read to its end holds a read
 * item, so no shard can still hold a smaller one: items come out in key order, with no gaps and no
 * duplicates. A shard that runs dry is read again (all dry shards at once, in parallel). State is
 * kept between `take` calls, so one merge can stream a whole partition set.
 */
export class ShardMerge<T> {
  private readonly state: Shard<T>[];
  /** The key of the last item taken. */
  private lastKey: string | undefined;

  constructor(
    shards: number,
    private readonly keyOf: (item: T) => string,
    private readonly read: ReadShard<T>,
    /** Start after this key (a page cursor's position); from the start when undefined. */
    after?: string,
  ) {
    this.state = Array.from({ length: shards }, () => ({ items: [], at: 0, after, exhausted: false }));
  }

  /** Whether any item may remain after those taken (true may still be followed by an empty take). */
  get more(): boolean {
    return this.state.some((shard) => !shard.exhausted || shard.at < shard.items.length);
  }

  /** The next `count` items in key order; fewer only when every shard is read to its end. */
  async take(count: number, readSize: ReadSize): Promise<T[]> {
    const taken: T[] = [];
    while (taken.length < count) {
      const dry = this.state.filter((shard) => !shard.exhausted && shard.at >= shard.items.length);
      if (dry.length > 0) {
        const live = this.state.filter((shard) => !shard.exhausted).length;
        const size = Math.max(1, readSize(count - taken.length, live));
        await Promise.all(dry.map((shard) => this.refill(shard, size)));
        continue;
      }
      let next: Shard<T> | undefined;
      for (const shard of this.state) {
        if (shard.at >= shard.items.length) continue;
        if (!next || this.keyOf(shard.items[shard.at] as T) < this.keyOf(next.items[next.at] as T)) next = shard;
      }
      if (!next) break;
      const item = next.items[next.at++] as T;
      // The same key in two shards (an item stored where it was before the partition was sharded,
      // and again in its shard) comes out once.
      if (this.lastKey !== undefined && this.keyOf(item) === this.lastKey) continue;
      this.lastKey = this.keyOf(item);
      taken.push(item);
    }
    return taken;
  }

  private async refill(shard: Shard<T>, size: number): Promise<void> {
    const index = this.state.indexOf(shard);
    const page = await this.read(index, shard.after, size);
    shard.items = page.items;
    shard.at = 0;
    const last = page.items[page.items.length - 1];
    if (last !== undefined) shard.after = this.keyOf(last);
    // A Query without a filter returns at least one item whenever one lies past its start; an empty
    // read therefore ends the shard even if it came with a LastEvaluatedKey.
    shard.exhausted = !page.more || page.items.length === 0;
  }
}
