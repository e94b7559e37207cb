// Sender domains as use cases: claim the domain in the table first (so two accounts never race each
// other to SES), then register it with the identity port; refresh its status from the port; delete both.
import { domainAndParents, domainProofHours, IdentityTakenError, type DomainIdentity } from '../identities/identities';
import { log } from '../log';
import { currentTime } from '../time';
import { verifySender } from './confirmation-service';
import { listSenderVerificationsPage, unverifySender, type SenderVerification } from '../senders/repository';
import { ownAddressVerified } from './address-service';
import { addressDomain } from '../identities/alignment';
import { identities } from '../identities/identity-port';
import {
  claimSenderDomain,
  coveringDomainOf,
  getSenderDomain,
  heldDomain,
  heldDomainsAbove,
  heldDomainsBelow,
  recordDomainIdentity,
  releaseSenderDomain,
  takeOverSenderDomain,
  type ClaimRefusal,
  type HeldDomain,
  type SenderDomain,
} from '../identities/domain-repository';
import { reservedForService } from '../identities/service-domain';

/**
 * Whether a claim can no longer be proved by its holder: SES gave up on it, or its holder has held it
 * unproven for longer than SES looks for DKIM records (counted from its first save, across deletes).
 */
function unproven(held: HeldDomain, now: Date): boolean {
  if (held.status === 'failed') return true;
  return held.status === 'pending' && now.getTime() - Date.parse(held.unprovenSince) > domainProofHours * 3_600_000;
}

/**
 * Why the account may not register the domain whatever its own claim: it is the service's own (or
 * around it); a domain above it is another account's, verified or still being proved (SES would report
 * the subdomain verified by inheritance, and sign its mail with that domain's key); or a subdomain of
 * it is another account's verified domain. Undefined when nothing stands in the way.
 */
async function refusalAround(accountId: number, domain: string): Promise<ClaimRefusal | undefined> {
  if (reservedForService(domain)) return 'reserved';
  const now = currentTime();
  const above = await heldDomainsAbove(domain);
  if (above.some((held) => held.holder !== accountId && !unproven(held, now))) return 'under-another';
  const below = await heldDomainsBelow(domain);
  if (below.some((held) => held.holder !== accountId && held.status === 'verified')) return 'above-another';
  return undefined;
}

/**
 * Take the domain from the account that holds it without having proved it (see `unproven`), so that
 * nobody can keep a domain from its owner by registering it first. SES's word is asked first: a domain
 * verified since its record was last refreshed stays with its holder (and is stored verified). The
 * holder's SES identity goes, so the new holder gets DKIM records of its own. The refusal otherwise.
 */
async function takeOverUnproven(accountId: number, domain: string): Promise<SenderDomain | ClaimRefusal> {
  const held = await heldDomain(domain);
  if (!held || held.holder === accountId || !unproven(held, currentTime())) return 'held-by-another';
  const { holder } = held;
  if ((await refreshSenderDomain(holder, domain)).status === 'verified') return 'held-by-another';
  const taken = await takeOverSenderDomain(accountId, domain, holder);
  if (!taken) return 'held-by-another';
  await identities().deleteDomain(domain);
  // A domain verified once and failed since (its identity deleted in SES) may have verified senders.
  await takeBackVerifications(holder, domain);
  log.info('unproven sender domain handed to another account', { accountId, domain, previousHolder: holder });
  return taken;
}

/**
 * Register a domain for the account: its record with the DKIM records to publish, or why not. A
 * domain another account holds without having proved it in SES's time goes to this account. When
 * the identity port fails, the claim (and an identity made meanwhile) is undone, so the save can
 * simply be retried. An identity that exists outside every claim (the service's own domain, one
 * made by hand) is refused as held by another.
 */
export async function registerSenderDomain(accountId: number, domain: string): Promise<SenderDomain | ClaimRefusal> {
  const refusal = await refusalAround(accountId, domain);
  if (refusal) return refusal;
  let claimed = await claimSenderDomain(accountId, domain);
  if (claimed === 'held-by-another') claimed = await takeOverUnproven(accountId, domain);
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
  const identity = (await identities().domainIdentity(domain)) ?? { status: 'failed' as const, verifiedForSending: false, dkimRecords: stored.dkim_records };
  const unchanged = identity.status === stored.status && JSON.stringify(identity.dkimRecords) === JSON.stringify(stored.dkim_records);
  if (unchanged) return stored;
  const refreshed = await recordDomainIdentity(accountId, domain, identity);
  if (refreshed.status === 'verified') await verifySendersOn(accountId, domain);
  return refreshed;
}

/** Senders read per page while looking for those on a newly verified domain. */
const senderPageSize = 100;

/** The account's senders whose address is on the domain or a subdomain of it, page after page (an account has a handful). */
async function sendersOn(accountId: number, domain: string): Promise<SenderVerification[]> {
  const found: SenderVerification[] = [];
  let cursor: string | undefined;
  do {
    const page = await listSenderVerificationsPage(accountId, { limit: senderPageSize, ...(cursor ? { cursor } : {}) });
    found.push(...page.items.filter((sender) => domainAndParents(addressDomain(sender.from_email)).includes(domain)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return found;
}

/**
 * Verify the account's unverified senders that the domain now covers (on it or a subdomain of it, and
 * no nearer domain of another account's in between), releasing what waited for them.
 */
async function verifySendersOn(accountId: number, domain: string): Promise<void> {
  for (const sender of await sendersOn(accountId, domain)) {
    if (sender.is_verified === 1 || !(await coveringDomainOf(accountId, addressDomain(sender.from_email)))) continue;
    await verifySender(accountId, sender.id, sender.from_email, 'domain');
  }
}

/**
 * Delete the account's domain, then its identity (SES forgets a missing one quietly), then take back
 * the verification of the senders that had it from this domain or a parent of theirs, unless another
 * verified domain of the account still covers them or their own address identity is verified for this
 * account: nothing keeps mailing from a domain the account no longer holds (sending holds an
 * unverified sender's mail). RecordNotFound when the account has no such domain.
 */
export async function removeSenderDomain(accountId: number, domain: string): Promise<void> {
  await releaseSenderDomain(accountId, domain);
  await identities().deleteDomain(domain);
  await takeBackVerifications(accountId, domain);
}

/** Unverify the account's senders that had their verification from the domain it no longer holds, and have it from nothing else. */
async function takeBackVerifications(accountId: number, domain: string): Promise<void> {
  for (const sender of await sendersOn(accountId, domain)) {
    if (sender.is_verified === 0 || sender.verified_by !== 'domain') continue;
    if (await coveringDomainOf(accountId, addressDomain(sender.from_email))) continue;
    if (await ownAddressVerified(accountId, sender.from_email)) continue;
    await unverifySender(accountId, sender.id, sender.from_email);
  }
}
