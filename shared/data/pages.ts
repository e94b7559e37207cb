// Paged lists: one Query per page, continued with DynamoDB's LastEvaluatedKey handed to the client
// as an opaque, signed cursor that is bound to the partition (so to the account and the list) it came from.
import { signToken, verifyToken } from '../auth/signed-token';
import { queryPage, type Item } from './records';

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
 * One page of a list, in the partition's sort-key order. A page ends at `limit` items, at the end of
 * DynamoDB's 1 MB read, or at `maxPageBytes` of item JSON, whichever comes first; the cursor then
 * continues right after the last item returned. Throws InvalidCursor for a cursor of another list.
 */
export async function queryListPage(source: ListSource, request: PageRequest): Promise<ListPage<Item>> {
  const start = request.cursor === undefined ? undefined : decodeCursor(source, request.cursor);
  const page = await queryPage({ ...source, limit: request.limit, cursor: start });
  const items: Item[] = [];
  let bytes = 0;
  for (const item of page.items) {
    bytes += Buffer.byteLength(JSON.stringify(item), 'utf8');
    if (items.length > 0 && bytes > maxPageBytes) break;
    items.push(item);
  }
  const cut = items.length < page.items.length;
  const last = items[items.length - 1];
  // DynamoDB may hand back a LastEvaluatedKey on a page that turns out to be the last; the next,
  // empty page then answers null, which costs one more request but never drops an item.
  const nextCursor = last && (cut || page.next) ? encodeCursor(source, last) : null;
  return { items, nextCursor };
}

/** The same page with its items turned into output records. */
export async function mapPage<In, T>(page: ListPage<In>, toRecord: (item: In) => T | Promise<T>): Promise<ListPage<T>> {
  return { items: await Promise.all(page.items.map(toRecord)), nextCursor: page.nextCursor };
}
