// Addresses SES reported as hard-bounced or complaining, per account: never mailed again. Kept apart
// from the global unsubscribe list on purpose: that list is the account's own (its API adds and
// deletes entries), while these come from the mail system and must not vanish with a list clean-up.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { db, tableName } from '../table/client';
import { bouncedAddressKey, bouncedAddressPartition } from './bounce-keys';
import { queryAll, withoutKeys } from '../table/records';

export type BounceKind = 'bounce' | 'complaint';

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
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: bouncedAddressKey(accountId, email.trim()),
      // Every name aliased: DynamoDB reserves many plain words.
      UpdateExpression:
        'SET #entity = :entity, #email = if_not_exists(#email, :email), #kind = :kind, #detail = :detail, ' +
        '#first = if_not_exists(#first, :now), #last = :now ADD #reports :one',
      ExpressionAttributeNames: {
        '#entity': 'entity',
        '#email': 'email_address',
        '#kind': 'kind',
        '#detail': 'detail',
        '#first': 'first_at',
        '#last': 'last_at',
        '#reports': 'reports',
      },
      ExpressionAttributeValues: { ':entity': 'bounced-address', ':email': email.trim(), ':kind': kind, ':detail': detail, ':now': now, ':one': 1 },
    }),
  );
}

/** The addresses (lower-cased) among `addresses` that bounced hard or complained: one BatchGetItem per 100. */
export async function bouncedAmong(accountId: number, addresses: readonly string[]): Promise<Set<string>> {
  const distinct = [...new Set(addresses.map((address) => address.trim().toLowerCase()).filter((address) => address !== ''))];
  const items = await batchGetAll(
    distinct.map((address) => bouncedAddressKey(accountId, address)),
    { consistentRead: true, projection: { expression: 'sk' } },
  );
  return new Set(items.map((item) => String(item.sk)));
}

/** Every suppressed address of the account, in address order. */
export async function listBouncedAddresses(accountId: number): Promise<BouncedAddress[]> {
  const items = await queryAll({ partition: bouncedAddressPartition(accountId) });
  return items.map((item) => {
    const record = withoutKeys<Record<string, unknown>>(item);
    return {
      email_address: String(record.email_address),
      kind: record.kind === 'complaint' ? 'complaint' : 'bounce',
      detail: typeof record.detail === 'string' ? record.detail : null,
      first_at: String(record.first_at),
      last_at: String(record.last_at),
      reports: Number(record.reports ?? 1),
    };
  });
}
