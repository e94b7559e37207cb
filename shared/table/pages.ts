// Paged lists: one Query per page, continued with DynamoDB's LastEvaluatedKey handed to the client
// as an opaque, signed cursor that is bound to the partition (so to the account and the list) it came from.
// A write-sharded list (the account's contacts) merges one Query per shard into each page instead,
// with the same kind of cursor, positioned at the last item's sort key.
import { signToken, verifyToken } from '../signed-token';
import { shardPartition } from './keys';
import { queryPage, queryPageAfter, type Item } from './records';
import { pageReadSize, ShardMerge } from './shard-merge';

/** Most items one page holds, and what a list answers when the client names no limit. */
export const maxPageSize = 1000;

/**
 * Most bytes of item JSON one page carries. DynamoDB already ends a Query at 1 MB read, but JSON can
 * be larger than the stored item (escaped quotes and control characters in a design's HTML), and
 * API Gateway escapes the body once more inside Lambda's 6 MB response; 2 MB keeps both well clear.
 */
export const maxPageBytes = 2 * 1024 * 1024;

/** What a client asks for: how many items, and where the previous page ended. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface ListPage<T> {
  items: T[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

/** Which partition a list reads: a table partition, or one of gsi1. */
export interface ListSource {
  partition: string;
  index?: 'gsi1';
  /** Newest first: the partition in descending sort-key order. */
  descending?: boolean;
  /** Leave out items with this attribute (e.g. a contact type being deleted). */
  without?: string;
}

/** The cursor was not issued by this service for this list (tampered, another account's, another list's). */
export class InvalidCursor extends Error {
  constructor() {
    super('The cursor does not belong to this list');
    this.name = 'InvalidCursor';
  }
}

const cursorPurpose = 'list-cursor';

/** The key attributes DynamoDB needs to continue a Query: the table key, plus the index key when reading one. */
function keyAttributes(source: ListSource): string[] {
  return source.index ? ['pk', 'sk', 'gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
}

function encodeCursor(source: ListSource, item: Item): string {
  const claims: Record<string, string> = { partition: source.partition, index: source.index ?? '' };
  for (const name of keyAttributes(source)) claims[`k_${name}`] = String(item[name]);
  return signToken(cursorPurpose, claims);
}

function decodeCursor(source: ListSource, cursor: string): Record<string, string> {
  const check = verifyToken(cursorPurpose, cursor);
  if (!check.valid || check.claims.partition !== source.partition || check.claims.index !== (source.index ?? '')) throw new InvalidCursor();
  const key: Record<string, string> = {};
  for (const name of keyAttributes(source)) {
    const value = check.claims[`k_${name}`];
    if (typeof value !== 'string') throw new InvalidCursor();
    key[name] = value;
  }
  // The start key must lie in the partition read, or DynamoDB refuses the Query.
  if (key[source.index ? 'gsi1pk' : 'pk'] !== source.partition) throw new InvalidCursor();
  return key;
}

/**
 * The cursor of a list whose page is put together from more than one read (a merge): positioned at a
 * sort key of the partition, as `queryListPage` positions its own at the last item's.
 */
export function positionCursor(partition: string, sortKey: string): string {
  return encodeCursor({ partition }, { pk: partition, sk: sortKey });
}

/** The sort key a `positionCursor` (or a `queryListPage` cursor) of the partition holds; throws InvalidCursor for another list's. */
export function cursorPosition(partition: string, cursor: string): string {
  return decodeCursor({ partition }, cursor).sk as string;
}

/**
 * One page of a list, in the partition's sort-key order. A page ends at `limit` items, at the end of
 * DynamoDB's 1 MB read, or at `maxPageBytes` of item JSON, whichever comes first; the cursor then
 * continues right after the last item returned. Throws InvalidCursor for a cursor of another list.
 */
export async function queryListPage(source: ListSource, request: PageRequest): Promise<ListPage<Item>> {
  const start = request.cursor === undefined ? undefined : decodeCursor(source, request.cursor);
  const page = await queryPage({ ...source, limit: request.limit, cursor: start });
  const items = withinPageBytes(page.items);
  const cut = items.length < page.items.length;
  const last = items[items.length - 1];
  // DynamoDB may hand back a LastEvaluatedKey on a page that turns out to be the last; the next,
  // empty page then answers null, which costs one more request but never drops an item.
  // A filtered page may hold no item at all and still not be the last: it continues from DynamoDB's key.
  const position = last ?? (page.next as Item | undefined);
  const nextCursor = position && (cut || page.next) ? encodeCursor(source, position) : null;
  return { items, nextCursor };
}

/** The leading items that fit in `maxPageBytes` of JSON (always at least one). */
function withinPageBytes(read: Item[]): Item[] {
  const items: Item[] = [];
  let bytes = 0;
  for (const item of read) {
    bytes += Buffer.byteLength(JSON.stringify(item), 'utf8');
    if (items.length > 0 && bytes > maxPageBytes) break;
    items.push(item);
  }
  return items;
}

/** A list whose items are write-sharded over `shards` partitions `<partition>#<shard>` (see keys.ts). */
export interface ShardedListSource extends ListSource {
  shards: number;
  /** Items stored before the list was sharded stay in `<partition>` itself: it is read as one more shard. */
  unsharded?: boolean;
}

/**
 * One page of a sharded list in sort-key order (sort keys unique across its shards): a k-way merge
 * of its shards, each Queried (in parallel) from just after the cursor's position for about
 * limit/shards items, and again when it runs dry before the page is full. The cursor is the one
 * `queryListPage` issues for the unsharded partition, positioned at the page's last sort key: it
 * stays small, and a cursor issued before the list was sharded still continues where it stood.
 * Throws InvalidCursor for a cursor of another list.
 */
export async function queryShardedListPage(source: ShardedListSource, request: PageRequest): Promise<ListPage<Item>> {
  const list: ListSource = { partition: source.partition, ...(source.index ? { index: source.index } : {}) };
  const skName = source.index ? 'gsi1sk' : 'sk';
  const after = request.cursor === undefined ? undefined : decodeCursor(list, request.cursor)[skName];
  const merge = new ShardMerge<Item>(
    source.shards + (source.unsharded ? 1 : 0),
    (item) => String(item[skName]),
    async (shard, from, limit) => {
      const partition = shard === source.shards ? source.partition : shardPartition(source.partition, shard);
      const page = await queryPageAfter({ partition, index: source.index, after: from, limit });
      return { items: page.items, more: page.next !== undefined };
    },
    after,
  );
  const read = await merge.take(request.limit, pageReadSize);
  const items = withinPageBytes(read);
  const last = items[items.length - 1];
  // As above, `more` may be true on what turns out to be the last page: the next page is then empty.
  const nextCursor = last && (items.length < read.length || merge.more) ? encodeCursor(list, { ...last, [source.index ? 'gsi1pk' : 'pk']: source.partition }) : null;
  return { items, nextCursor };
}

/** The same page with its items turned into output records. */
export async function mapPage<In, T>(page: ListPage<In>, toRecord: (item: In) => T | Promise<T>): Promise<ListPage<T>> {
  return { items: await Promise.all(page.items.map(toRecord)), nextCursor: page.nextCursor };
}
