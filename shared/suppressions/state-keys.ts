// Keys of the per-address suppression state (one item per account and address) and of the account's marker that says it is complete.
import { type Key, entityPartition } from '../table/keys';

export const ADDRESS_SUPPRESSION = 'address-suppression';

/** The partition of the account's address states: the backfill and tests page through it. */
export function addressSuppressionPartition(accountId: number): string {
  return entityPartition(accountId, ADDRESS_SUPPRESSION);
}

/** An address's state (case-insensitive): one GetItem answers "may this address be mailed?" for any send. */
export function addressSuppressionKey(accountId: number, email: string): Key {
  return { pk: addressSuppressionPartition(accountId), sk: email.trim().toLowerCase() };
}

/**
 * The account's one marker item, in a partition of its own: an address may hold any character an
 * address partition's sort key could be confused with, so the marker never shares one.
 */
export function addressSuppressionMarkerKey(accountId: number): Key {
  return { pk: entityPartition(accountId, `${ADDRESS_SUPPRESSION}-marker`), sk: 'state' };
}
