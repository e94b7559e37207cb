// Suppression lists: the account's global unsubscribes and each unsubscribe group's recipients, and
// the address lookups the sending pipeline, the public unsubscribe page and SES event handling use.
//
// Every entry is two items written in one transaction: the record by id (for delete by id) and an
// item keyed by the lower-cased address (one GetItem answers "is this address suppressed?", and a
// conditional put on it keeps each address once per list without a read-then-write race). The same
// transaction updates the address's suppression state (state.ts), which a send reads instead of the lists.
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { deleteAllOrNothing, type Companions } from '../table/bulk-delete';
import { RecordNotFound } from '../table/errors';
import { reserveIds } from '../table/ids';
import { GLOBAL_UNSUBSCRIBE, UNSUBSCRIBE_GROUP, UNSUBSCRIBE_GROUP_RECIPIENT, globalUnsubscribeAddressKey, globalUnsubscribeKey, globalUnsubscribePartition, unsubscribeGroupAddressKey, unsubscribeGroupAddressPartition, unsubscribeGroupKey, unsubscribeGroupRecipientIdIndexKey, unsubscribeGroupRecipientIdIndexPartition, unsubscribeGroupRecipientKey } from './keys';
import { type Key } from '../table/keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, queryAll, withoutKeys, type Item } from '../table/records';
import { cancellationCodes, transactUnlessRefused, transactWrite, type TransactionAction } from '../table/transactions';
import { stateChange, type SuppressionSource } from './state';

/** The spec's global unsubscribe entry; a group recipient has the same shape with its group's id. */
export interface SuppressionEntry {
  id: number;
  user_id: number;
  unsubscribe_groups_id: number | null;
  email_address: string;
  created_at: string;
  updated_at: string;
}

/** One suppression list of an account: its global list (`groupId: null`) or one unsubscribe group. */
export interface SuppressionList {
  accountId: number;
  groupId: number | null;
}

/** Which id space an entry id belongs to: global entries and group recipients are numbered apart. */
export type SuppressionKind = 'global' | 'group';

/** 32 addresses make 64 puts and 32 state updates plus the group counter: inside DynamoDB's 100 actions per transaction. */
const addressesPerTransaction = 32;
const maxConflictRetries = 5;

function entityOf(kind: SuppressionKind): string {
  return kind === 'global' ? GLOBAL_UNSUBSCRIBE : UNSUBSCRIBE_GROUP_RECIPIENT;
}

function kindOf(list: SuppressionList): SuppressionKind {
  return list.groupId === null ? 'global' : 'group';
}

function entryKey(accountId: number, kind: SuppressionKind, id: number): Key {
  return kind === 'global' ? globalUnsubscribeKey(accountId, id) : unsubscribeGroupRecipientKey(accountId, id);
}

function addressKey(accountId: number, groupId: number | null, email: string): Key {
  return groupId === null ? globalUnsubscribeAddressKey(accountId, email) : unsubscribeGroupAddressKey(accountId, groupId, email);
}

function sourceOf(groupId: number | null): SuppressionSource {
  return groupId === null ? { list: 'global' } : { list: 'group', groupId };
}

function toEntry(item: Item): SuppressionEntry {
  const { id, user_id, unsubscribe_groups_id, email_address, created_at, updated_at } = withoutKeys<SuppressionEntry>(item);
  return { id, user_id, unsubscribe_groups_id: unsubscribe_groups_id ?? null, email_address, created_at, updated_at };
}

/** Keeps the group's `unsubscribe_clients_count` in step, in the same transaction as the change. */
function groupCounterChange(accountId: number, groupId: number, by: number): TransactionAction {
  return {
    Update: {
      Key: unsubscribeGroupKey(accountId, groupId),
      UpdateExpression: 'ADD #count :by',
      // A counter on a missing group would create a ghost group item.
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#count': 'unsubscribe_clients_count' },
      ExpressionAttributeValues: { ':by': by },
    },
  };
}

function pause(attempt: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, Math.min(1000, 25 * 2 ** attempt)));
}

/** Address items that exist among `keys` (strongly consistent unless asked otherwise: a fresh unsubscribe must count). */
function existingAddressItems(keys: Key[], consistent = true): Promise<Item[]> {
  return batchGetAll(keys, { consistentRead: consistent, projection: { expression: '#email', names: { '#email': 'email_address' } } });
}

/** Lower-cased, distinct: the form address items are keyed by, and BatchGetItem refuses duplicate keys. */
function distinctAddresses(addresses: readonly string[]): Map<string, string> {
  const distinct = new Map<string, string>();
  for (const address of addresses) {
    const folded = address.trim().toLowerCase();
    if (folded !== '' && !distinct.has(folded)) distinct.set(folded, address.trim());
  }
  return distinct;
}

/**
 * How a look-up reads: strongly consistent unless `consistent` is false (the send path: each look is
 * made once per mail at send time, and an unsubscribe of the last second costs half as much to miss
 * as every mail costs to read strongly).
 */
export interface ReadConsistency {
  consistent?: boolean;
}

/**
 * The addresses (lower-cased) among `addresses` that the account has unsubscribed globally or, when
 * `groupId` is given, from that group: what a send must skip. One BatchGetItem per 100 keys (one
 * key per address and list).
 */
export async function suppressedAmong(accountId: number, addresses: readonly string[], groupId: number | null = null, reads: ReadConsistency = {}): Promise<Set<string>> {
  const distinct = [...distinctAddresses(addresses).keys()];
  const keys = distinct.map((address) => addressKey(accountId, null, address));
  if (groupId !== null) keys.push(...distinct.map((address) => addressKey(accountId, groupId, address)));
  const items = await existingAddressItems(keys, reads.consistent ?? true);
  return new Set(items.map((item) => String(item.email_address).toLowerCase()));
}

/** Whether an address is on one list: one strongly consistent GetItem. */
export async function isSuppressed(list: SuppressionList, email: string): Promise<boolean> {
  return (await getItem(addressKey(list.accountId, list.groupId, email.trim()), { consistent: true })) !== undefined;
}

/** Write one transaction's worth of new addresses; addresses another request added meanwhile are skipped. */
async function addChunk(list: SuppressionList, addresses: string[]): Promise<SuppressionEntry[]> {
  let remaining = addresses;
  for (let conflicts = 0; remaining.length > 0; ) {
    const firstId = await reserveIds(list.accountId, entityOf(kindOf(list)), remaining.length);
    const now = isoTimestamp();
    const entries: SuppressionEntry[] = remaining.map((email_address, i) => ({
      id: firstId + i,
      user_id: list.accountId,
      unsubscribe_groups_id: list.groupId,
      email_address,
      created_at: now,
      updated_at: now,
    }));
    const actions: TransactionAction[] = entries.flatMap((entry) => [
      {
        Put: {
              Item: { ...addressKey(list.accountId, list.groupId, entry.email_address), entity: `${entityOf(kindOf(list))}-address`, ...entry },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
              Item: {
            ...entryKey(list.accountId, kindOf(list), entry.id),
            // A group's records also sit in its id-ordered index, so its list pages in id order.
            ...(list.groupId !== null ? unsubscribeGroupRecipientIdIndexKey(list.accountId, list.groupId, entry.id) : {}),
            entity: entityOf(kindOf(list)),
            ...entry,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      stateChange(list.accountId, entry.email_address, sourceOf(list.groupId), true),
    ]);
    if (list.groupId !== null) actions.push(groupCounterChange(list.accountId, list.groupId, entries.length));
    try {
      await transactWrite(actions);
      return entries;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (list.groupId !== null && codes[actions.length - 1] === 'ConditionalCheckFailed') {
        throw new RecordNotFound(UNSUBSCRIBE_GROUP, list.groupId);
      }
      const taken = new Set(remaining.filter((_, i) => codes[3 * i] === 'ConditionalCheckFailed'));
      if (taken.size === 0) {
        // Cancelled by a concurrent transaction on the same items (e.g. the group counter): retry.
        if (++conflicts > maxConflictRetries) throw error;
        await pause(conflicts);
      }
      // The ids reserved for this attempt are left unused: ids may have gaps, never duplicates.
      remaining = remaining.filter((address) => !taken.has(address));
    }
  }
  return [];
}

/**
 * Add addresses to a list; an address already on it (in any letter case) is left as it is. Returns
 * the entries created. Throws RecordNotFound when the list is a group that does not exist.
 */
export async function addToSuppressionList(list: SuppressionList, addresses: readonly string[]): Promise<SuppressionEntry[]> {
  const distinct = distinctAddresses(addresses);
  const present = await existingAddressItems([...distinct.keys()].map((address) => addressKey(list.accountId, list.groupId, address)));
  for (const item of present) distinct.delete(String(item.email_address).toLowerCase());
  const pending = [...distinct.values()];
  const added: SuppressionEntry[] = [];
  for (let start = 0; start < pending.length; start += addressesPerTransaction) {
    added.push(...(await addChunk(list, pending.slice(start, start + addressesPerTransaction))));
  }
  return added;
}

/** A list's entries in id order. */
export async function listSuppressionList(list: SuppressionList): Promise<SuppressionEntry[]> {
  if (list.groupId === null) return (await queryAll({ partition: globalUnsubscribePartition(list.accountId) })).map(toEntry);
  // A group's entries live in its address partition (address order), so its list is one Query.
  const items = await queryAll({ partition: unsubscribeGroupAddressPartition(list.accountId, list.groupId) });
  return items.map(toEntry).sort((a, b) => a.id - b.id);
}

/** One page of a list in id order: the global list's own partition, or a group's id index. */
export async function listSuppressionListPage(list: SuppressionList, page: PageRequest): Promise<ListPage<SuppressionEntry>> {
  const source =
    list.groupId === null
      ? { partition: globalUnsubscribePartition(list.accountId) }
      : { partition: unsubscribeGroupRecipientIdIndexPartition(list.accountId, list.groupId), index: 'gsi1' as const };
  return mapPage(await queryListPage(source, page), toEntry);
}

/** The writes that must go with deleting an entry: its address item and its address's state. */
function entryCompanions(accountId: number, entry: SuppressionEntry): TransactionAction[] {
  return [
    { Delete: { Key: addressKey(accountId, entry.unsubscribe_groups_id, entry.email_address) } },
    stateChange(accountId, entry.email_address, sourceOf(entry.unsubscribe_groups_id), false),
  ];
}

/** The writes that must go with deleting these entries: their address items, states and group counters. */
function deletionCompanions(accountId: number, items: Item[]): TransactionAction[] {
  const perGroup = new Map<number, number>();
  const actions: TransactionAction[] = items.flatMap((item) => {
    const entry = toEntry(item);
    if (entry.unsubscribe_groups_id !== null) perGroup.set(entry.unsubscribe_groups_id, (perGroup.get(entry.unsubscribe_groups_id) ?? 0) + 1);
    return entryCompanions(accountId, entry);
  });
  for (const [groupId, count] of perGroup) actions.push(groupCounterChange(accountId, groupId, -count));
  return actions;
}

/** The same writes for one entry of a bulk delete, its group count as a change the bulk delete merges. */
function bulkDeletionCompanions(accountId: number, item: Item): Companions {
  const entry = toEntry(item);
  return {
    writes: entryCompanions(accountId, entry),
    counters:
      entry.unsubscribe_groups_id === null ? [] : [{ key: unsubscribeGroupKey(accountId, entry.unsubscribe_groups_id), attribute: 'unsubscribe_clients_count', delta: -1 }],
  };
}

/** Delete one entry by id, with its address item (and group count); RecordNotFound when it is not there. */
export async function deleteSuppressionEntry(accountId: number, kind: SuppressionKind, id: number): Promise<void> {
  const key = entryKey(accountId, kind, id);
  const item = await getItem(key);
  if (!item) throw new RecordNotFound(entityOf(kind), id);
  const actions: TransactionAction[] = [
    { Delete: { Key: key, ConditionExpression: 'attribute_exists(pk)' } },
    ...deletionCompanions(accountId, [item]),
  ];
  // A conflict (another change of the address's state) is retried; a refusal means deleted by a concurrent request meanwhile.
  if (!(await transactUnlessRefused(actions)).ok) throw new RecordNotFound(entityOf(kind), id);
}

/** Delete every listed entry or, when any id is unknown in the account, none. */
export async function deleteSuppressionEntries(accountId: number, kind: SuppressionKind, ids: number[]): Promise<void> {
  await deleteAllOrNothing({
    accountId,
    entity: entityOf(kind),
    keys: ids.map((id) => entryKey(accountId, kind, id)),
    plan: (items) => items.map((item) => bulkDeletionCompanions(accountId, item)),
  });
}

/** The addresses (lower-cased) among `addresses` in the group (the global list is not consulted). */
export async function inUnsubscribeGroupAmong(accountId: number, groupId: number, addresses: readonly string[]): Promise<Set<string>> {
  const distinct = [...distinctAddresses(addresses).keys()];
  const items = await existingAddressItems(distinct.map((address) => addressKey(accountId, groupId, address)));
  return new Set(items.map((item) => String(item.email_address).toLowerCase()));
}

/**
 * Take an address off one list (a recipient re-joining a group from the preferences page); idempotent.
 * True when it was on the list. The address item names the entry, so no listing is needed.
 */
export async function removeFromSuppressionList(list: SuppressionList, email: string): Promise<boolean> {
  const key = addressKey(list.accountId, list.groupId, email.trim());
  const item = await getItem(key, { consistent: true });
  if (!item) return false;
  const entry = toEntry(item);
  const actions: TransactionAction[] = [
    { Delete: { Key: entryKey(list.accountId, kindOf(list), entry.id), ConditionExpression: 'attribute_exists(pk)' } },
    ...deletionCompanions(list.accountId, [item]),
  ];
  // False when removed by a concurrent request (or the group deleted) between the read and the write.
  return (await transactUnlessRefused(actions)).ok;
}
