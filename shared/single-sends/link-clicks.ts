// Per-link click counts of a single send: each click adds atomically to its link's item in one of the
// send's link partitions, chosen at random (table/counter-shards.ts), so a popular link's clicks spread
// over several items; the statistics read every partition and sum a link's items.
import { entityPartition, shardPartition, type Key } from '../table/keys';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { counterShards, randomShard } from '../table/counter-shards';
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

/**
 * The partition of a send's link items as they were stored before they were sharded (`ref` encoded);
 * no click is added there any more, and what it holds is read beside the shards.
 */
function linkClicksPartition(ref: SendRef): string {
  return entityPartition(ref.accountId, `link-clicks#${encodeSendRef(ref)}`);
}

/** Every partition of a send's link items: the one from before sharding, then each shard. */
function linkClicksPartitions(ref: SendRef): string[] {
  const legacy = linkClicksPartition(ref);
  return [legacy, ...Array.from({ length: counterShards }, (_, shard) => shardPartition(legacy, shard))];
}

function linkClicksKey(ref: SendRef, target: string, shard: number): Key {
  return { pk: shardPartition(linkClicksPartition(ref), shard), sk: linkHash(target) };
}

/** Count one click on a link, in a random shard; `unique` when it is this recipient's first click on it. */
export async function addLinkClick(ref: SendRef, target: string, unique: boolean): Promise<void> {
  await updateItem({
    Key: linkClicksKey(ref, target, randomShard()),
    UpdateExpression: 'SET #url = if_not_exists(#url, :url), entity = :entity ADD clicks :one, unique_clicks :unique',
    ExpressionAttributeNames: { '#url': 'url' },
    ExpressionAttributeValues: { ':url': target, ':entity': 'link-clicks', ':one': 1, ':unique': unique ? 1 : 0 },
  });
}

/** Up to `limit` items of one partition in link-hash order, and whether it holds more after them. */
async function readPartition(partition: string, limit: number): Promise<{ items: Item[]; more: boolean }> {
  const items: Item[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({ partition, cursor, limit: limit - items.length });
    items.push(...page.items);
    cursor = page.next;
  } while (cursor && items.length < limit);
  return { items, more: cursor !== undefined };
}

/**
 * Every link's items summed, from an even share of `maxLinkItemsRead` items per partition. All
 * partitions are in the same link-hash order: links are taken only up to the smallest last hash among
 * the partitions read in part, so each link shown is summed over all of its items.
 */
async function readLinks(ref: SendRef): Promise<LinkClicks[]> {
  const partitions = linkClicksPartitions(ref);
  const reads = await Promise.all(partitions.map((partition) => readPartition(partition, Math.ceil(maxLinkItemsRead / partitions.length))));
  const cut = reads
    .filter((read) => read.more && read.items.length > 0)
    .map((read) => String(read.items[read.items.length - 1]?.sk))
    .reduce<string | undefined>((least, hash) => (least === undefined || hash < least ? hash : least), undefined);
  const byHash = new Map<string, LinkClicks>();
  for (const item of reads.flatMap((read) => read.items)) {
    const hash = String(item.sk);
    if (cut !== undefined && hash > cut) continue;
    const link = byHash.get(hash) ?? { url: String(item.url ?? ''), clicks: 0, unique_clicks: 0 };
    link.clicks += Number(item.clicks ?? 0);
    link.unique_clicks += Number(item.unique_clicks ?? 0);
    byHash.set(hash, link);
  }
  return [...byHash.values()];
}

/** The send's most clicked links (clicks, then unique clicks, descending; then by URL), at most `shownLinks`. */
export async function mostClickedLinks(ref: SendRef): Promise<LinkClicks[]> {
  const links = await readLinks(ref);
  links.sort((a, b) => b.clicks - a.clicks || b.unique_clicks - a.unique_clicks || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return links.slice(0, shownLinks);
}

/**
 * Delete one page of a send's link items (a deleted send's purge job); answers how many went, 0 once
 * none is left. Always from the start of the first of its partitions that holds any: the items deleted are the progress, so a run that
 * stopped anywhere goes on by reading again, and an item written late (a click counted just before
 * the send was deleted) is still found while the purge lasts.
 */
export async function deleteLinkClicksPage(ref: SendRef, limit = 500): Promise<number> {
  for (const partition of linkClicksPartitions(ref)) {
    const page = await queryPage({ partition, limit });
    if (page.items.length === 0) continue;
    await batchWriteAll(page.items.map(deleteRequest));
    return page.items.length;
  }
  return 0;
}
