// Keys of accounts, their credentials and the id counters.
import { type Key } from './base';

// Accounts and credentials

/** The account profile. */
export function accountKey(accountId: number): Key {
  return { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' };
}

/** A public key's own item: resolves to its account and the secret's hash in one GetItem. */
export function credentialKey(publicKey: string): Key {
  return { pk: `CREDENTIAL#${publicKey}`, sk: 'CREDENTIAL' };
}

/** The counter that hands out account ids. */
export function accountIdCounterKey(): Key {
  return { pk: 'GLOBAL', sk: 'COUNTER#account' };
}

/** The counter that hands out ids of one kind of record within one account. */
export function idCounterKey(accountId: number, entity: string): Key {
  return { pk: `A#${accountId}`, sk: `COUNTER#${entity}` };
}
