// Keys of sender domains: the account's record, the domain's one claim (keyed by the domain alone, so
// two accounts cannot hold it), and the local identity stand-in's items.
import { type Key, entityPartition } from '../table/keys';

export const SENDER_DOMAIN = 'sender-domain';

/** The account's record of one domain; sorted by name. */
export function senderDomainKey(accountId: number, domain: string): Key {
  return { pk: senderDomainPartition(accountId), sk: domain };
}

export function senderDomainPartition(accountId: number): string {
  return entityPartition(accountId, SENDER_DOMAIN);
}

export const domainClaimPrefix = 'DOMAIN#';

/** The one item saying which account holds a domain: written with the account's record, in one transaction. */
export function domainClaimKey(domain: string): Key {
  return { pk: `${domainClaimPrefix}${domain}`, sk: 'claim' };
}

/** The local adapter's stand-in for an SES identity (an address or a domain). */
export function localIdentityKey(identity: string): Key {
  return { pk: 'LOCAL-IDENTITY', sk: identity };
}

/**
 * The one item saying which account holds an address's SES identity: only that account may take SES's
 * word that the address is verified (SES has one identity per address for the whole AWS account).
 * Addresses compare as SES compares them, without regard to case.
 */
export function addressClaimKey(address: string): Key {
  return { pk: `ADDRESS#${address.trim().toLowerCase()}`, sk: 'claim' };
}

/** What waits on SES: a pending domain, or a sender whose address was registered and is not verified yet. */
export type PendingKind = 'sender-domain' | 'sender';

/**
 * The gsi1 keys that list one waiting record in the periodic check's index: a partition per kind,
 * sorted by when the wait began (`<ISO time>#<account>#<id or domain>`), so a check reads only the
 * waits still young enough for SES to settle, with a Query, never a Scan.
 */
export function pendingIndexKeys(kind: PendingKind, since: string, accountId: number, id: string | number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: pendingIndexPartition(kind), gsi1sk: `${since}#${accountId}#${id}` };
}

export function pendingIndexPartition(kind: PendingKind): string {
  return `PENDING-IDENTITY#${kind}`;
}
