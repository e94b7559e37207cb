// The paging checks every list operation must pass: pages of `limit`, next_cursor null at the end,
// the same items as the unpaged list, and refused limits and cursors (tampered, foreign).
import type { Keys } from './events';

type Reply = { status: number; body: Record<string, unknown> };
/** Calls one list operation as `keys` with extra query fields (limit, cursor). */
export type ListCall = (keys: Keys, query: Record<string, string | number>) => Promise<Reply>;

interface ListMessage {
  items: unknown[];
  nextCursor: string | null;
}

function messageOf(reply: Reply, listName: string): ListMessage {
  if (reply.status !== 200) throw new Error(`list answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const message = reply.body.message as Record<string, unknown>;
  expect(Object.keys(message)).toEqual([listName, 'next_cursor']);
  return { items: message[listName] as unknown[], nextCursor: message.next_cursor as string | null };
}

/** Every page of the list with `limit`, following next_cursor until it is null. */
export async function walkPages(call: ListCall, keys: Keys, listName: string, limit: number): Promise<ListMessage[]> {
  const pages: ListMessage[] = [];
  let cursor: string | null = null;
  do {
    const page = messageOf(await call(keys, { limit, ...(cursor ? { cursor } : {}) }), listName);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 100) throw new Error('the list never ends');
  } while (cursor);
  return pages;
}

function invalid(field: string, message: string): Reply {
  return { status: 422, body: { status: 'failed', errors: { [field]: [message] } } };
}

/** A cursor with one character of its signed payload changed. */
function tamper(cursor: string): string {
  const at = Math.floor(cursor.indexOf('.') / 2);
  return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
}

/**
 * Check paging of a list holding exactly five items for `owner`; `foreign` is a list (another
 * account's, or another list of the same account) with at least two items.
 */
export async function expectFiveItemsToPage(options: { call: ListCall; listName: string; owner: Keys; foreign: { call: ListCall; keys: Keys } }) {
  const { call, listName, owner } = options;
  const whole = messageOf(await call(owner, {}), listName);
  expect(whole.items).toHaveLength(5);
  expect(whole.nextCursor).toBeNull();

  const pages = await walkPages(call, owner, listName, 2);
  expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
  expect(pages.flatMap((page) => page.items)).toEqual(whole.items);
  expect(pages.map((page) => page.nextCursor === null)).toEqual([false, false, true]);
  expect(messageOf(await call(owner, { limit: 5 }), listName).items).toEqual(whole.items);

  const cursor = pages[0]?.nextCursor as string;
  expect(await call(owner, { limit: 2, cursor: tamper(cursor) })).toEqual(invalid('cursor', 'The cursor field is invalid.'));
  expect(await call(owner, { limit: 2, cursor: 'not-a-cursor' })).toEqual(invalid('cursor', 'The cursor field is invalid.'));
  const foreign = messageOf(await options.foreign.call(options.foreign.keys, { limit: 1 }), listName).nextCursor as string;
  expect(foreign).toEqual(expect.any(String));
  expect(await call(owner, { limit: 2, cursor: foreign })).toEqual(invalid('cursor', 'The cursor field is invalid.'));

  expect(await call(owner, { limit: 0 })).toEqual(invalid('limit', 'The limit field must be at least 1.'));
  expect(await call(owner, { limit: 1001 })).toEqual(invalid('limit', 'The limit field must not be greater than 1000.'));
  expect(await call(owner, { limit: 'ten' })).toEqual(invalid('limit', 'The limit field must be an integer.'));
}
