// Keys of addresses SES reported as bounced or complaining.
import { type Key, entityPartition } from '../table/keys';

/** Addresses that hard-bounced or complained, by lower-cased address: one GetItem answers "suppressed?". */
export function bouncedAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'bounced-address'), sk: email.toLowerCase() };
}

export function bouncedAddressPartition(accountId: number): string {
  return entityPartition(accountId, 'bounced-address');
}
