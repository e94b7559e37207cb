// The per-address suppression state of an account beside what its lists say, for tests that compare them.
import { listBouncedAddresses } from '../../shared/suppressions/bounces';
import { listSuppressionList } from '../../shared/suppressions/repository';
import { addressSuppressionMarkerKey, addressSuppressionPartition } from '../../shared/suppressions/state-keys';
import { listUnsubscribeGroups } from '../../shared/suppressions/unsubscribe-groups';
import { deleteItem, queryAll } from '../../shared/table/records';

export interface Listed {
  global: boolean;
  groups: number[];
  bounced: boolean;
}

/** What the state items say, for every address on at least one list. */
export async function states(accountId: number): Promise<Record<string, Listed>> {
  const items = await queryAll({ partition: addressSuppressionPartition(accountId) });
  const entries = items.map((item): [string, Listed] => [
    String(item.sk),
    {
      global: item.global_unsubscribe === true,
      groups: item.unsubscribe_groups instanceof Set ? [...(item.unsubscribe_groups as Set<number>)].map(Number).sort((a, b) => a - b) : [],
      bounced: item.bounced === true,
    },
  ]);
  return Object.fromEntries(entries.filter(([, listed]) => listed.global || listed.groups.length > 0 || listed.bounced));
}

/** What the lists say, in the same shape. */
export async function lists(accountId: number): Promise<Record<string, Listed>> {
  const found: Record<string, Listed> = {};
  const of = (email: string) => (found[email.toLowerCase()] ??= { global: false, groups: [], bounced: false });
  for (const entry of await listSuppressionList({ accountId, groupId: null })) of(entry.email_address).global = true;
  for (const group of await listUnsubscribeGroups(accountId)) {
    for (const entry of await listSuppressionList({ accountId, groupId: group.id })) of(entry.email_address).groups.push(group.id);
  }
  for (const bounced of await listBouncedAddresses(accountId)) of(bounced.email_address).bounced = true;
  for (const listed of Object.values(found)) listed.groups.sort((a, b) => a - b);
  return found;
}

export async function expectAgreement(accountId: number, expected: Record<string, Listed>): Promise<void> {
  expect(await lists(accountId)).toEqual(expected);
  expect(await states(accountId)).toEqual(expected);
}

/** An address's listing: on no list but those given. */
export const on = (listed: Partial<Listed>): Listed => ({ global: false, groups: [], bounced: false, ...listed });

/**
 * Make the account look as one stored before the suppression state existed: its lists as they are,
 * no state item and no marker.
 */
export async function asStoredBeforeState(accountId: number): Promise<void> {
  for (const item of await queryAll({ partition: addressSuppressionPartition(accountId) })) await deleteItem({ Key: { pk: String(item.pk), sk: String(item.sk) } });
  await deleteItem({ Key: addressSuppressionMarkerKey(accountId) });
}
