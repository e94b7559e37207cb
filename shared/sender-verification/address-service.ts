// Sender addresses as SES identities, as use cases: register an address (deployed, SES mails our
// branded custom verification mail; otherwise the caller mails our own signed link), decide when SES's
// word that it is verified counts, and let an address go when no sender of the account uses it any more.
// SES reports an address verified after the click on its mail, but also when a verified domain above
// it covers it (inheritance, shared/identities/identities.ts) and when someone verified it outside the
// service; neither may verify an account's sender, so SES's word counts only where it can only mean
// this account's click.
import { config } from '../config';
import { verifySender } from './confirmation-service';
import { getSender, listSenderVerificationsPage, unlistPendingSender } from '../senders/repository';
import { RecordNotFound } from '../table/errors';
import { getAddressClaim, giveUpHolding, leaveAddress, useAddress } from '../identities/address-repository';
import { addressDomain } from '../identities/alignment';
import { domainAndParents } from '../identities/identities';
import { identities, type AddressRegistration } from '../identities/identity-port';

/**
 * Domains above an address looked up in SES at most: one GetEmailIdentity each, so an address deeper
 * than this (never seen in practice) is not trusted to SES at all rather than costing a call per label.
 */
export const maxInheritanceLookups = 10;

/**
 * Whether SES could report the address verified without anyone clicking: a domain identity on or
 * above its domain is verified for sending (whoever holds it: another account, the service, an
 * operator by hand). Too deep to look up counts as could.
 */
async function couldInherit(address: string): Promise<boolean> {
  const domains = domainAndParents(addressDomain(address));
  if (domains.length > maxInheritanceLookups) return true;
  for (const domain of domains) {
    if ((await identities().domainIdentity(domain))?.verifiedForSending) return true;
  }
  return false;
}

/**
 * Register a sender's address for the account and say who mails the verification. The first account
 * to use an address holds it and, when SES's word for it can only mean that account's click, has the
 * identity port make its identity (deployed, SES mails). Our own signed link (`registered`) goes
 * instead to every other account, and also to the first one when the identity exists already outside
 * the service (it is then nobody's to trust or delete) or a verified domain above the address would
 * make SES call it verified unclicked.
 */
export async function registerSenderAddress(accountId: number, address: string): Promise<AddressRegistration> {
  const use = await useAddress(accountId, address);
  if (use === 'shared') return 'registered';
  if (use === 'new' && (await identities().addressIdentity(address))) {
    await giveUpHolding(accountId, address, false);
    return 'registered';
  }
  if (await couldInherit(address)) {
    if (use === 'new') await giveUpHolding(accountId, address, false);
    return 'registered';
  }
  return identities().registerAddress(address, { templateName: config().senderVerificationTemplate });
}

/**
 * Whether SES's word that the address is verified counts for the account: it holds the address, the
 * service made its identity for it, no verified domain identity lies above it, and SES says verified.
 */
export async function ownAddressVerified(accountId: number, address: string): Promise<boolean> {
  const claim = await getAddressClaim(address);
  if (claim?.holder !== accountId || !claim.identityMade) return false;
  if (!(await identities().addressIdentity(address))?.verifiedForSending) return false;
  return !(await couldInherit(address));
}

/**
 * Whether the sender is verified, asking the identity port when it is not yet: an address SES has
 * verified for this account (see `ownAddressVerified`) verifies the sender (releasing its waiting
 * sends), as our link would. RecordNotFound when the sender is gone.
 */
export async function refreshSenderVerification(accountId: number, senderId: number): Promise<boolean> {
  const sender = await getSender(accountId, senderId);
  if (sender.is_verified === 1) return true;
  if (!(await ownAddressVerified(accountId, sender.from_email))) return false;
  try {
    return (await verifySender(accountId, senderId, sender.from_email, 'address')) !== 'address-changed';
  } catch (error) {
    // Deleted meanwhile: nothing to verify.
    if (error instanceof RecordNotFound) return false;
    throw error;
  }
}

/** Senders read per page while looking through an account's senders (an account has a handful). */
const senderPageSize = 100;

/** Whether a sender of the account (other than `exceptId`) has the address. */
async function addressInUse(accountId: number, address: string, exceptId?: number): Promise<boolean> {
  const wanted = address.trim().toLowerCase();
  let cursor: string | undefined;
  do {
    const page = await listSenderVerificationsPage(accountId, { limit: senderPageSize, ...(cursor ? { cursor } : {}) });
    if (page.items.some((sender) => sender.id !== exceptId && sender.from_email.trim().toLowerCase() === wanted)) return true;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return false;
}

/**
 * After a sender was deleted or moved to another address: when no other sender of the account has
 * the old address, the account stops using it. The last account to use it has the SES identity
 * deleted, if the service made it, so the next account to save the address proves it afresh; while
 * another account still uses it the identity stays, and nobody takes SES's word for it any more.
 */
export async function releaseAddressIfUnused(accountId: number, address: string, exceptId?: number): Promise<void> {
  if (await addressInUse(accountId, address, exceptId)) return;
  const claim = await getAddressClaim(address);
  if ((await leaveAddress(accountId, address)) !== 'last' || !claim?.identityMade) return;
  // The claim went first: should this deletion fail, the next account finds the identity and treats
  // it as made outside the service, so nobody inherits the verification.
  await identities().deleteAddress(address);
}

/** What became of a sender whose verification mail went unclicked past SES's link. */
export type ExpiredOutcome = 'verified' | 'removed' | 'gone';

/**
 * A sender whose verification mail went unclicked for longer than SES's link lives (24 hours): asked
 * once more (a click in the last minutes verifies it), otherwise the address identity the service made
 * for this account is deleted, since each one left behind takes one of SES's 10,000 identities of the
 * region, and the sender leaves the periodic check's index. It stays, unverified: a resend of its
 * verification mail makes the identity afresh. An identity another account's click made, or one made
 * outside the service, is never deleted here.
 */
export async function expireSenderVerification(accountId: number, senderId: number, position: string): Promise<ExpiredOutcome> {
  let address: string;
  try {
    address = (await getSender(accountId, senderId)).from_email;
  } catch (error) {
    if (error instanceof RecordNotFound) return 'gone';
    throw error;
  }
  if (await refreshSenderVerification(accountId, senderId)) return 'verified';
  const claim = await getAddressClaim(address);
  if (claim?.holder === accountId && claim.identityMade) await identities().deleteAddress(address);
  await unlistPendingSender(accountId, senderId, position);
  return 'removed';
}
