// Unsubscribe groups (topics a recipient can opt out of): every table access for the groups
// themselves; their recipients are entries of a suppression list (repository.ts).
import { randomInt } from 'node:crypto';
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { UNSUBSCRIBE_GROUP, unsubscribeGroupKey, unsubscribeGroupPartition } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, putNewItem, queryAll, updateExistingItem, withoutKeys, type Item } from '../table/records';

export interface UnsubscribeGroup {
  id: number;
  user_id: number;
  rand_id: string;
  group_name: string;
  description: string;
  is_display: 0 | 1;
  created_at: string;
  updated_at: string;
}

export interface UnsubscribeGroupWithCount extends UnsubscribeGroup {
  unsubscribe_clients_count: number;
}

/** What a client sets on a group (save and update). */
export interface UnsubscribeGroupInput {
  group_name: string;
  description: string;
  is_display: 0 | 1;
}

/**
 * The spec's `rand_id`: numeric text, 8 to 10 digits, drawn from a CSPRNG. It is an opaque label,
 * not a key: nothing looks a group up by it, so it is random enough without a uniqueness check.
 */
export function newRandId(): string {
  return String(randomInt(10_000_000, 10_000_000_000));
}

function toGroup(item: Item): UnsubscribeGroup {
  const { id, user_id, rand_id, group_name, description, is_display, created_at, updated_at } = withoutKeys<UnsubscribeGroup>(item);
  return { id, user_id, rand_id, group_name, description, is_display: is_display === 1 ? 1 : 0, created_at, updated_at };
}

function toGroupWithCount(item: Item): UnsubscribeGroupWithCount {
  return { ...toGroup(item), unsubscribe_clients_count: Number(item.unsubscribe_clients_count ?? 0) };
}

export async function listUnsubscribeGroups(accountId: number): Promise<UnsubscribeGroupWithCount[]> {
  return (await queryAll({ partition: unsubscribeGroupPartition(accountId) })).map(toGroupWithCount);
}

/** One page of the account's unsubscribe groups, in id order. */
export async function listUnsubscribeGroupsPage(accountId: number, page: PageRequest): Promise<ListPage<UnsubscribeGroupWithCount>> {
  return mapPage(await queryListPage({ partition: unsubscribeGroupPartition(accountId) }, page), toGroupWithCount);
}

/** The groups a recipient may choose on the unsubscribe preferences page (`is_display` = 1). */
export async function listDisplayedUnsubscribeGroups(accountId: number): Promise<UnsubscribeGroup[]> {
  const items = await queryAll({ partition: unsubscribeGroupPartition(accountId) });
  return items.map(toGroup).filter((group) => group.is_display === 1);
}

export async function getUnsubscribeGroup(accountId: number, id: number): Promise<UnsubscribeGroup> {
  const item = await getItem(unsubscribeGroupKey(accountId, id));
  if (!item) throw new RecordNotFound(UNSUBSCRIBE_GROUP, id);
  return toGroup(item);
}

/** Whether the group exists in the account (for validating references to it). */
export async function unsubscribeGroupExists(accountId: number, id: number): Promise<boolean> {
  return (await getItem(unsubscribeGroupKey(accountId, id))) !== undefined;
}

export async function addUnsubscribeGroup(accountId: number, input: UnsubscribeGroupInput): Promise<UnsubscribeGroup> {
  const id = await nextId(accountId, UNSUBSCRIBE_GROUP);
  const now = isoTimestamp();
  const group: UnsubscribeGroup = {
    id,
    user_id: accountId,
    rand_id: newRandId(),
    group_name: input.group_name,
    description: input.description,
    is_display: input.is_display,
    created_at: now,
    updated_at: now,
  };
  const created = await putNewItem({ ...unsubscribeGroupKey(accountId, id), entity: UNSUBSCRIBE_GROUP, ...group, unsubscribe_clients_count: 0 });
  if (!created) throw new Error(`Unsubscribe group id ${id} of account ${accountId} was already taken`);
  return group;
}

export async function updateUnsubscribeGroup(accountId: number, id: number, input: UnsubscribeGroupInput): Promise<UnsubscribeGroup> {
  const item = await updateExistingItem(unsubscribeGroupKey(accountId, id), { ...input, updated_at: isoTimestamp() });
  if (!item) throw new RecordNotFound(UNSUBSCRIBE_GROUP, id);
  return toGroup(item);
}
