// The paging part of every list operation: the optional `limit` and `cursor` query fields, and the
// `next_cursor` member a list's success message carries beside the spec's array.
import { maxPageSize, type ListPage, type PageRequest } from '../table/pages';
import { integer, string } from '../validation';

/** Shown for a cursor that is not one this list issued (tampered, or another account's or list's). */
export const invalidCursorMessage = 'The cursor field is invalid.';

/** Schema fields to spread into an operation's query schema, so paging errors come with the others. */
export function pageQuery() {
  return {
    limit: integer().min(1).max(maxPageSize),
    cursor: string(),
  };
}

/** The page a validated query asks for; the whole first page when it names none. */
export function pageOf(input: { limit?: number; cursor?: string }): PageRequest {
  return { limit: input.limit ?? maxPageSize, ...(input.cursor ? { cursor: input.cursor } : {}) };
}

/** `{<list name>: items, next_cursor}`: existing clients read the array as before. */
export function withNextCursor<T>(listName: string, page: ListPage<T>): Record<string, unknown> {
  return { [listName]: page.items, next_cursor: page.nextCursor };
}
