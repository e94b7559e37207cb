// Keys of addresses SES reported as bounced or complaining.
import { type Key, entityPartition } from '../table/keys';

/** Addresses that hard-bounced or complained, by lower-cased address: one GetItem answers "suppressed?". */
export function bouncedAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'bounced-address'), sk: email.toLowerCase() };
}

export function bouncedAddressPartition(accountId: number): string {
  return entityPartition(accountId, 'bounced-address');
}

/** The gsi1 partition listing one kind's addresses (`bounce` or `complaint`) in address order. */
export function bouncedAddressKindPartition(accountId: number, kind: string): string {
  return entityPartition(accountId, `bounced-address-by-kind#${kind}`);
}

/** The gsi1 keys an address carries to appear in its latest kind's list; a new kind moves it. */
export function bouncedAddressKindIndexKey(accountId: number, kind: string, email: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: bouncedAddressKindPartition(accountId, kind), gsi1sk: email.toLowerCase() };
}
