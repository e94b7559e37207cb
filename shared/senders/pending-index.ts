// The periodic check's index of unverified senders (on gsi1, oldest first): pages of those still
// waiting and of those whose link expired. A sender leaves it through repository.ts (unlistPendingSender).
import { pendingIndexPartition } from '../identities/keys';
import { queryPageAfter } from '../table/records';

/** A sender in the periodic check's index. */
export interface PendingSender {
  accountId: number;
  senderId: number;
  /** The entry's position in the index: the next read starts after it. */
  position: string;
}

/**
 * One page of the unverified senders whose address was registered after `since` (an ISO time), oldest
 * first, from just after `after` (a position of the previous page). One Query on gsi1: never a Scan.
 */
export async function pendingSendersPage(since: string, after: string | undefined, limit: number): Promise<{ entries: PendingSender[]; last: boolean }> {
  const page = await queryPageAfter({ partition: pendingIndexPartition('sender'), index: 'gsi1', after: after ?? since, limit });
  const entries = page.items.map((item) => ({ accountId: Number(item.user_id), senderId: Number(item.id), position: String(item.gsi1sk) }));
  return { entries, last: page.next === undefined };
}

/**
 * One page of the unverified senders whose address was registered before `before` (an ISO time), oldest
 * first, from just after `after`: those SES's link no longer verifies. `last` once the page reaches
 * `before` or the index's end. One Query on gsi1.
 */
export async function expiredSendersPage(before: string, after: string | undefined, limit: number): Promise<{ entries: PendingSender[]; last: boolean }> {
  const page = await queryPageAfter({ partition: pendingIndexPartition('sender'), index: 'gsi1', ...(after ? { after } : {}), limit });
  const entries = page.items
    .filter((item) => String(item.gsi1sk) < before)
    .map((item) => ({ accountId: Number(item.user_id), senderId: Number(item.id), position: String(item.gsi1sk) }));
  return { entries, last: page.next === undefined || entries.length < page.items.length };
}
