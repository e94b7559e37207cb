// Addresses SES reported as hard-bounced or complaining, per account: never mailed again. Kept apart
// from the global unsubscribe list on purpose: that list is the account's own (its API adds and
// deletes entries), while these come from the mail system and must not vanish with a list clean-up.
// Each change updates the address's suppression state (state.ts) in the same transaction.
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { RecordNotFound } from '../table/errors';
import { bouncedAddressKey, bouncedAddressKindIndexKey, bouncedAddressKindPartition, bouncedAddressPartition } from './bounce-keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, queryAll, withoutKeys, type Item } from '../table/records';
import { transactUnlessRefused } from '../table/transactions';
import { stateChange } from './state';

export const bounceKinds = ['bounce', 'complaint'] as const;
export type BounceKind = (typeof bounceKinds)[number];

export interface BouncedAddress {
  email_address: string;
  /** The latest reason SES gave. */
  kind: BounceKind;
  /** SES's bounce sub-type or complaint feedback type, when it gave one. */
  detail: string | null;
  first_at: string;
  last_at: string;
  /** How many hard bounces and complaints were reported for the address. */
  reports: number;
}

/** Suppress an address for the account; reporting it again only updates the reason and count. */
export async function addBouncedAddress(accountId: number, email: string, kind: BounceKind, detail: string | null = null): Promise<void> {
  const now = isoTimestamp();
  // The kind's index entry follows the latest report, so a list by kind shows each address once.
  const { gsi1pk, gsi1sk } = bouncedAddressKindIndexKey(accountId, kind, email.trim());
  const report = {
    Key: bouncedAddressKey(accountId, email.trim()),
    // Every name aliased: DynamoDB reserves many plain words.
    UpdateExpression:
      'SET #entity = :entity, #email = if_not_exists(#email, :email), #kind = :kind, #detail = :detail, ' +
      '#first = if_not_exists(#first, :now), #last = :now, #gsi1pk = :gsi1pk, #gsi1sk = :gsi1sk ADD #reports :one',
    ExpressionAttributeNames: {
      '#gsi1pk': 'gsi1pk',
      '#gsi1sk': 'gsi1sk',
      '#entity': 'entity',
      '#email': 'email_address',
      '#kind': 'kind',
      '#detail': 'detail',
      '#first': 'first_at',
      '#last': 'last_at',
      '#reports': 'reports',
    },
    ExpressionAttributeValues: {
      ':entity': 'bounced-address',
      ':email': email.trim(),
      ':kind': kind,
      ':detail': detail,
      ':now': now,
      ':one': 1,
      ':gsi1pk': gsi1pk,
      ':gsi1sk': gsi1sk,
    },
  };
  // No condition: only a conflict with another change of the address (another report) cancels it, and that is retried.
  await transactUnlessRefused([{ Update: report }, stateChange(accountId, email, { list: 'bounced' }, true)]);
}

/** The addresses (lower-cased) among `addresses` that bounced hard or complained: one BatchGetItem per 100. */
export async function bouncedAmong(accountId: number, addresses: readonly string[], reads: { consistent?: boolean } = {}): Promise<Set<string>> {
  const distinct = [...new Set(addresses.map((address) => address.trim().toLowerCase()).filter((address) => address !== ''))];
  const items = await batchGetAll(
    distinct.map((address) => bouncedAddressKey(accountId, address)),
    // Strongly consistent unless the caller takes eventual reads (the send path: suppressions/repository.ts, ReadConsistency).
    { consistentRead: reads.consistent ?? true, projection: { expression: 'sk' } },
  );
  return new Set(items.map((item) => String(item.sk)));
}

function toBouncedAddress(item: Item): BouncedAddress {
  const record = withoutKeys<Record<string, unknown>>(item);
  return {
    email_address: String(record.email_address),
    kind: record.kind === 'complaint' ? 'complaint' : 'bounce',
    detail: typeof record.detail === 'string' ? record.detail : null,
    first_at: String(record.first_at),
    last_at: String(record.last_at),
    reports: Number(record.reports ?? 1),
  };
}

/** Every suppressed address of the account, in address order. */
export async function listBouncedAddresses(accountId: number): Promise<BouncedAddress[]> {
  return (await queryAll({ partition: bouncedAddressPartition(accountId) })).map(toBouncedAddress);
}

/** One page of the account's suppressed addresses in address order: all of them, or those of one kind (by its index). */
export async function listBouncedAddressesPage(accountId: number, kind: BounceKind | undefined, page: PageRequest): Promise<ListPage<BouncedAddress>> {
  const source = kind === undefined ? { partition: bouncedAddressPartition(accountId) } : { partition: bouncedAddressKindPartition(accountId, kind), index: 'gsi1' as const };
  return mapPage(await queryListPage(source, page), toBouncedAddress);
}

/** The account's entry for the address (any letter case). RecordNotFound when it is not on the list. */
export async function getBouncedAddress(accountId: number, email: string): Promise<BouncedAddress> {
  const item = await getItem(bouncedAddressKey(accountId, email.trim()));
  if (!item) throw new RecordNotFound('bounced-address', email);
  return toBouncedAddress(item);
}

/**
 * Take an address off the account's bounce and complaint list (any letter case), so its mail is sent
 * again: every send-time check reads this one item. RecordNotFound when it is not on the list.
 */
export async function deleteBouncedAddress(accountId: number, email: string): Promise<BouncedAddress> {
  const key = bouncedAddressKey(accountId, email.trim());
  const item = await getItem(key, { consistent: true });
  const deleted =
    item !== undefined &&
    (await transactUnlessRefused([{ Delete: { Key: key, ConditionExpression: 'attribute_exists(pk)' } }, stateChange(accountId, email, { list: 'bounced' }, false)])).ok;
  // Refused: deleted by a concurrent request between the read and the write.
  if (!item || !deleted) throw new RecordNotFound('bounced-address', email);
  return toBouncedAddress(item);
}
