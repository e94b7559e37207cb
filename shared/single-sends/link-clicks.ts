// Per-link click counts of a single send: one item per (send, link target) with atomic counters,
// in the send's own partition of link items, so the statistics read them with one Query.
import { entityPartition, type Key } from '../table/keys';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { queryPage, updateItem, type Item } from '../table/records';
import { linkHash } from '../rendering/click-tracking';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';

export interface LinkClicks {
  url: string;
  clicks: number;
  unique_clicks: number;
}

/** At most this many links are shown, the most clicked first. */
export const shownLinks = 100;

/**
 * At most this many link items are read for one answer. A design whose link targets hold per-recipient
 * placeholders has a target per recipient; the answer then stays one bounded read, and shows the most
 * clicked among the first items (by hash order, which is unrelated to the clicks).
 */
export const maxLinkItemsRead = 5000;

/** The partition of a send's link items (`ref` encoded). */
function linkClicksPartition(accountId: number, ref: string): string {
  return entityPartition(accountId, `link-clicks#${ref}`);
}

function linkClicksKey(ref: SendRef, target: string): Key {
  return { pk: linkClicksPartition(ref.accountId, encodeSendRef(ref)), sk: linkHash(target) };
}

/** Count one click on a link; `unique` when it is this recipient's first click on it. */
export async function addLinkClick(ref: SendRef, target: string, unique: boolean): Promise<void> {
  await updateItem({
    Key: linkClicksKey(ref, target),
    UpdateExpression: 'SET #url = if_not_exists(#url, :url), entity = :entity ADD clicks :one, unique_clicks :unique',
    ExpressionAttributeNames: { '#url': 'url' },
    ExpressionAttributeValues: { ':url': target, ':entity': 'link-clicks', ':one': 1, ':unique': unique ? 1 : 0 },
  });
}

function linkClicksOf(item: Item): LinkClicks {
  return { url: String(item.url ?? ''), clicks: Number(item.clicks ?? 0), unique_clicks: Number(item.unique_clicks ?? 0) };
}

/** The send's most clicked links (clicks, then unique clicks, descending; then by URL), at most `shownLinks`. */
export async function mostClickedLinks(ref: SendRef): Promise<LinkClicks[]> {
  const links: LinkClicks[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({ partition: linkClicksPartition(ref.accountId, encodeSendRef(ref)), cursor, limit: maxLinkItemsRead - links.length });
    links.push(...page.items.map(linkClicksOf));
    cursor = page.next;
  } while (cursor && links.length < maxLinkItemsRead);
  links.sort((a, b) => b.clicks - a.clicks || b.unique_clicks - a.unique_clicks || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return links.slice(0, shownLinks);
}

/**
 * Delete one page of a send's link items (a deleted send's purge job); answers how many went, 0 once
 * none is left. Always from the partition's start: the items deleted are the progress, so a run that
 * stopped anywhere goes on by reading again, and an item written late (a click counted just before
 * the send was deleted) is still found while the purge lasts.
 */
export async function deleteLinkClicksPage(ref: SendRef, limit = 500): Promise<number> {
  const page = await queryPage({ partition: linkClicksPartition(ref.accountId, encodeSendRef(ref)), limit });
  await batchWriteAll(page.items.map(deleteRequest));
  return page.items.length;
}
