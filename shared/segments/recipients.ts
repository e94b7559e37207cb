// Segment recipients: reading, listing and deleting the recipient items of segments. One item per
// segment and lower-cased address holds a manually stored entry, a matching contact, or both; the
// items are spread over 16 shards (keys.ts), merged back into address order where order matters.
// Items stored before the shards stay in the segment's unsharded partition for their whole life:
// every reader takes it as one more shard, and a change goes to the item where it was found.
import { isoTimestamp } from '../time';
import { batchGetAll, batchWriteAll, deleteRequest } from '../table/batch';
import { RecordNotFound } from '../table/errors';
import { countChange } from './counts';
import { exclusionPut } from './exclusions';
import {
  SEGMENT_RECIPIENT,
  legacySegmentRecipientKey,
  segmentRecipientIdIndexKey,
  segmentRecipientKey,
  segmentRecipientPartition,
  segmentRecipientShardPartitions,
  segmentRecipientShards,
} from './keys';
import { mapPage, queryShardedListPage, type ListPage, type PageRequest } from '../table/pages';
import { queryPage, queryPageAfter, withoutKeys, type Item } from '../table/records';
import { pageReadSize, ShardMerge, type ReadSize } from '../table/shard-merge';
import { committed, transactWrite } from '../table/transactions';

/** A manually stored recipient (`segment/email/store`). */
export interface ManualEntry {
  first_name: string;
  last_name: string;
  email: string;
}

/** The recipient fields copied from a contact that matches the segment's rules. */
export interface ContactEntry {
  contact_id: number;
  first_name: string;
  last_name: string;
  email: string;
  country: string | null;
  state: string | null;
  city: string | null;
  address_line1: string | null;
}

/** A segment recipient as the spec shows it. */
export interface SegmentRecipient {
  id: number;
  user_id: number;
  segment_id: number;
  contact_id: number | null;
  first_name: string;
  last_name: string;
  email: string;
  country: string | null;
  state: string | null;
  city: string | null;
  address_line1: string | null;
  created_at: string;
  updated_at: string;
  fullname: string;
}

/** A recipient item's content: `contact` wins over `manual` in output while both are present. */
export interface RecipientState {
  id?: number;
  manual?: ManualEntry;
  contact?: ContactEntry;
  created_at?: string;
  version?: number;
}

export function manualEntry(item: Partial<ManualEntry>): ManualEntry {
  return { first_name: String(item.first_name ?? ''), last_name: String(item.last_name ?? ''), email: String(item.email ?? '') };
}

export function contactEntry(item: Partial<ContactEntry>): ContactEntry {
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return {
    contact_id: Number(item.contact_id),
    first_name: String(item.first_name ?? ''),
    last_name: String(item.last_name ?? ''),
    email: String(item.email ?? ''),
    country: text(item.country),
    state: text(item.state),
    city: text(item.city),
    address_line1: text(item.address_line1),
  };
}

export function recipientState(item: Item | undefined): RecipientState | undefined {
  if (!item) return undefined;
  return {
    id: Number(item.id),
    manual: item.manual ? manualEntry(item.manual as ManualEntry) : undefined,
    contact: item.contact ? contactEntry(item.contact as ContactEntry) : undefined,
    created_at: String(item.created_at),
    version: Number(item.version ?? 0),
  };
}

export function toSegmentRecipient(item: Item): SegmentRecipient {
  const record = withoutKeys(item);
  const state = recipientState(item) as RecipientState;
  const shown = state.contact ?? (state.manual as ManualEntry);
  const contact = state.contact;
  return {
    id: Number(record.id),
    user_id: Number(record.user_id),
    segment_id: Number(record.segment_id),
    contact_id: contact?.contact_id ?? null,
    first_name: shown.first_name,
    last_name: shown.last_name,
    email: shown.email,
    country: contact?.country ?? null,
    state: contact?.state ?? null,
    city: contact?.city ?? null,
    address_line1: contact?.address_line1 ?? null,
    created_at: String(record.created_at),
    updated_at: String(record.updated_at),
    fullname: [shown.first_name, shown.last_name].filter((part) => part.trim() !== '').join(' '),
  };
}

/**
 * One page of a segment's recipients in address order (case-insensitive): the shards are keyed by
 * address, so pages are stable without a second index; the id index serves lookups by id only.
 */
export async function listSegmentRecipientsPage(accountId: number, segmentId: number, page: PageRequest): Promise<ListPage<SegmentRecipient>> {
  return mapPage(await queryShardedListPage({ partition: segmentRecipientPartition(accountId, segmentId), shards: segmentRecipientShards, unsharded: true }, page), toSegmentRecipient);
}

/**
 * A segment's recipients page by page in address order, for reading a whole segment: one merge of
 * the 16 shards streams the pass, so each item is read once, whatever the page size.
 */
export async function forEachSegmentRecipient(
  accountId: number,
  segmentId: number,
  onBatch: (recipients: SegmentRecipient[]) => Promise<void>,
  pageSize = 500,
): Promise<void> {
  const merge = shardsOf(accountId, segmentId, undefined);
  for (;;) {
    const items = await merge.take(pageSize, pageReadSize);
    if (items.length > 0) await onBatch(items.map(toSegmentRecipient));
    if (items.length < pageSize) return;
  }
}

/** Every partition a segment's recipients may be in: its 16 shards, and where they were stored before. */
function recipientPartitions(accountId: number, segmentId: number): string[] {
  return [...segmentRecipientShardPartitions(accountId, segmentId), segmentRecipientPartition(accountId, segmentId)];
}

/** A merge of the segment's 16 shards and its unsharded partition in key order, from just after `after`. */
function shardsOf(accountId: number, segmentId: number, after: string | undefined): ShardMerge<Item> {
  const partitions = recipientPartitions(accountId, segmentId);
  return new ShardMerge<Item>(
    partitions.length,
    (item) => String(item.sk),
    async (shard, from, size) => {
      const page = await queryPageAfter({ partition: partitions[shard] as string, after: from, limit: size });
      return { items: page.items, more: page.next !== undefined };
    },
    after,
  );
}

/** One page of a segment's recipients from a position, and the position after it. */
export interface SegmentRecipientsPage {
  recipients: SegmentRecipient[];
  /** The key (lower-cased address) of the page's last item; undefined when nothing is left after `after`. */
  last: string | undefined;
}

/**
 * The key a resume position names: the recipient items' sort key, which is the address trimmed and
 * lower-cased. Positions written before keys were used as positions held the shown address
 * lower-cased (untrimmed); this maps those to the same key too.
 */
function segmentRecipientPosition(address: string): string {
  return address.trim().toLowerCase();
}

/**
 * What each shard is asked for while a page of recipients is merged: a little under its even share
 * of what is still needed, so that few items are read past the page's end (they are read again by
 * the next page, which starts from the page's last key). A shard that runs dry is read again.
 * Pages of 100 over 16 shards read about 1.15 items per recipient, pages of 500 about 1.05.
 */
const recipientReadSize: ReadSize = (needed, liveShards) => Math.max(1, Math.floor(needed / Math.max(1, liveShards)) - 1);

/**
 * The next `limit` recipients of a segment in key order after the key `after` (null: from the
 * first): a merge of the 16 shards, each Queried from past `after`, so a reader that resumes from
 * the last key it saw (the send dispatcher keeps it in its cursor) reads each item about once over
 * a whole pass.
 */
export async function segmentRecipientsAfter(accountId: number, segmentId: number, after: string | null, limit: number): Promise<SegmentRecipientsPage> {
  const merge = shardsOf(accountId, segmentId, after === null ? undefined : segmentRecipientPosition(after));
  const items = await merge.take(limit, recipientReadSize);
  const last = items[items.length - 1];
  return { recipients: items.map(toSegmentRecipient), last: last === undefined ? undefined : String(last.sk) };
}

/** The items at these (lower-cased) addresses, each where it is, and copies of them stored twice. */
export interface RecipientItems {
  found: Map<string, Item>;
  /**
   * Items stored before the shards whose address also has an item in its shard: only a write of the
   * previous version racing this one's while a stage is upgraded leaves one. The shard's item is
   * the one found; the copy is deleted by the next change of that address.
   */
  strayCopies: Map<string, Item>;
}

/**
 * The recipient items at these lower-cased addresses: BatchGets of their shard keys, then, only when
 * the segment still holds items stored before the shards (one Query of one item says so), of the
 * keys they would have there.
 */
export async function recipientItemsAt(
  accountId: number,
  segmentId: number,
  addresses: readonly string[],
  options: { consistentRead?: boolean; concurrency?: number } = {},
): Promise<RecipientItems> {
  const read = (keys: Parameters<typeof batchGetAll>[0]) => batchGetAll(keys, options);
  const [sharded, probe] = await Promise.all([
    read(addresses.map((address) => segmentRecipientKey(accountId, segmentId, address))),
    queryPage({ partition: segmentRecipientPartition(accountId, segmentId), limit: 1 }),
  ]);
  const found = new Map(sharded.map((item) => [String(item.sk), item]));
  const strayCopies = new Map<string, Item>();
  if (probe.items.length === 0) return { found, strayCopies };
  for (const item of await read(addresses.map((address) => legacySegmentRecipientKey(accountId, segmentId, address)))) {
    const address = String(item.sk);
    if (found.has(address)) strayCopies.set(address, item);
    else found.set(address, item);
  }
  return { found, strayCopies };
}

/** The contacts currently in a segment through its rules: contact id -> the address its item is keyed by. */
export async function matchedContactsOfSegment(accountId: number, segmentId: number): Promise<Map<number, string>> {
  const matched = new Map<number, string>();
  await forEachSegmentRecipient(accountId, segmentId, async (recipients) => {
    for (const recipient of recipients) if (recipient.contact_id !== null) matched.set(recipient.contact_id, recipient.email);
  });
  return matched;
}

async function findRecipientItem(accountId: number, recipientId: number): Promise<Item | undefined> {
  const page = await queryPage({ partition: segmentRecipientIdIndexKey(accountId, recipientId).gsi1pk, index: 'gsi1', limit: 1 });
  return page.items[0];
}

/**
 * Delete one recipient by id, whatever it holds, and lower one of the segment's counters. A contact
 * it held is excluded (an item of its own), so the contact stays out while it still matches the rules.
 */
export async function deleteSegmentRecipient(accountId: number, recipientId: number): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const item = await findRecipientItem(accountId, recipientId);
    if (!item || Number(item.id) !== recipientId) throw new RecordNotFound(SEGMENT_RECIPIENT, recipientId);
    const contactId = (item.contact as ContactEntry | undefined)?.contact_id;
    // The item changed (a contact moved in or out) or the segment is being deleted: look again.
    const deleted = await committed(
      transactWrite([
        {
          Delete: {
            Key: { pk: item.pk, sk: item.sk },
            ConditionExpression: '#version = :version AND #id = :id',
            ExpressionAttributeNames: { '#version': 'version', '#id': 'id' },
            ExpressionAttributeValues: { ':version': item.version, ':id': recipientId },
          },
        },
        ...(contactId === undefined ? [] : [exclusionPut(accountId, Number(item.segment_id), Number(contactId), isoTimestamp())]),
        countChange(accountId, Number(item.segment_id), -1),
      ]),
    );
    if (deleted) return;
  }
  throw new RecordNotFound(SEGMENT_RECIPIENT, recipientId);
}

/**
 * Delete up to `limit` recipient items of a (deleted) segment, from the first shard that still holds
 * some, 25 per BatchWriteItem, retrying what DynamoDB leaves unprocessed; answers how many went (0:
 * none was left). Deleted items leave their shard, so the next call starts where this one stopped.
 */
export async function deleteSegmentRecipientsPage(accountId: number, segmentId: number, limit = 500): Promise<number> {
  for (const partition of recipientPartitions(accountId, segmentId)) {
    const page = await queryPage({ partition, limit });
    if (page.items.length === 0) continue;
    await batchWriteAll(page.items.map(deleteRequest));
    return page.items.length;
  }
  return 0;
}
