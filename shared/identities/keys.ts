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

/** The one item saying which account holds a domain: written with the account's record, in one transaction. */
export function domainClaimKey(domain: string): Key {
  return { pk: `DOMAIN#${domain}`, sk: 'claim' };
}

/** The local adapter's stand-in for an SES identity (an address or a domain). */
export function localIdentityKey(identity: string): Key {
  return { pk: 'LOCAL-IDENTITY', sk: identity };
}
