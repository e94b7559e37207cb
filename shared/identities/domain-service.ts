// Sender domains as use cases: claim the domain in the table first (so two accounts never race each
// other to SES), then register it with the identity port; refresh its status from the port; delete both.
import { IdentityTakenError, type DomainIdentity } from './identities';
import { verifySender } from '../senders/confirmation-service';
import { listSendersPage } from '../senders/repository';
import { addressDomain } from './alignment';
import { identities } from './identity-port';
import {
  claimSenderDomain,
  getSenderDomain,
  recordDomainIdentity,
  releaseSenderDomain,
  type ClaimRefusal,
  type SenderDomain,
} from './domain-repository';

/**
 * Register a domain for the account: its record with the DKIM records to publish, or why not. When
 * the identity port fails, the claim (and an identity made meanwhile) is undone, so the save can
 * simply be retried. An identity that exists outside every claim (the service's own domain, one
 * made by hand) is refused as held by another.
 */
export async function registerSenderDomain(accountId: number, domain: string): Promise<SenderDomain | ClaimRefusal> {
  const claimed = await claimSenderDomain(accountId, domain);
  if (typeof claimed === 'string') return claimed;
  let identity: DomainIdentity;
  try {
    identity = await identities().registerDomain(domain);
  } catch (error) {
    await releaseSenderDomain(accountId, domain);
    if (error instanceof IdentityTakenError) return 'held-by-another';
    throw error;
  }
  try {
    return await recordDomainIdentity(accountId, domain, identity);
  } catch (error) {
    await releaseSenderDomain(accountId, domain);
    await identities().deleteDomain(domain);
    throw error;
  }
}

/**
 * The domain with its status as the identity port sees it now, stored when it changed. An identity
 * gone from SES (deleted by hand) can no longer verify anything: the domain is then `failed`. A
 * domain that has just become verified verifies the account's senders on it, as a save would have.
 */
export async function refreshSenderDomain(accountId: number, domain: string): Promise<SenderDomain> {
  const stored = await getSenderDomain(accountId, domain);
  const identity = (await identities().domainIdentity(domain)) ?? { status: 'failed' as const, dkimRecords: stored.dkim_records };
  const unchanged = identity.status === stored.status && JSON.stringify(identity.dkimRecords) === JSON.stringify(stored.dkim_records);
  if (unchanged) return stored;
  const refreshed = await recordDomainIdentity(accountId, domain, identity);
  if (refreshed.status === 'verified') await verifySendersOn(accountId, domain);
  return refreshed;
}

/** Senders read per page while looking for those on a newly verified domain. */
const senderPageSize = 100;

/** Verify the account's unverified senders whose address is on the domain, releasing what waited for them. */
async function verifySendersOn(accountId: number, domain: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await listSendersPage(accountId, { limit: senderPageSize, ...(cursor ? { cursor } : {}) });
    for (const sender of page.items) {
      if (sender.is_verified === 0 && addressDomain(sender.from_email) === domain) await verifySender(accountId, sender.id, sender.from_email);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** Delete the account's domain, then its identity (SES forgets a missing one quietly). RecordNotFound when it has none. */
export async function removeSenderDomain(accountId: number, domain: string): Promise<void> {
  await releaseSenderDomain(accountId, domain);
  await identities().deleteDomain(domain);
}
