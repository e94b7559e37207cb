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

/**
 * A domain's place in the tree of claimed domains, written with its claim: the partition of its last
 * two labels, sorted by its labels reversed (`news.acme.com` is `com.acme.news.` under `com.acme`),
 * so the claimed subdomains of a domain, at any depth, are one Query with a prefix.
 */
export function domainTreeKey(domain: string): Key {
  const labels = domain.split('.').reverse();
  return { pk: `DOMAIN-TREE#${labels.slice(0, 2).join('.')}`, sk: `${labels.join('.')}.` };
}

/**
 * When the account first saved the domain without proving it since: kept across its deletes, so
 * deleting and saving again does not restart the time it has to prove the domain.
 */
export function unprovenSinceKey(domain: string, accountId: number): Key {
  return { pk: `${domainClaimPrefix}${domain}`, sk: `unproven#${accountId}` };
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

/** Where the periodic check's lap through one kind of the pending index stopped: the next run goes on after it. */
export function refreshCursorKey(kind: PendingKind): Key {
  return { pk: 'IDENTITY-REFRESH', sk: `cursor#${kind}` };
}
