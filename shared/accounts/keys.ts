// Keys of accounts and their credentials.
import { type Key } from '../table/keys';

// Accounts and credentials

/** The account profile. */
export function accountKey(accountId: number): Key {
  return { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' };
}

/** A public key's own item: resolves to its account and the secret's hash in one GetItem. */
export function credentialKey(publicKey: string): Key {
  return { pk: `CREDENTIAL#${publicKey}`, sk: 'CREDENTIAL' };
}
