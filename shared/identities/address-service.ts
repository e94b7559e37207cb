// Sender addresses as SES identities, as use cases: register an address (deployed, SES mails our
// branded custom verification mail; locally the caller mails our own signed link), take SES's word
// that it is verified (only for the account holding the address, see address-repository.ts), and
// let an address go when no sender of the account uses it any more.
import { config } from '../config';
import { verifySender } from '../senders/confirmation-service';
import { getSender, listSenderVerificationsPage } from '../senders/repository';
import { RecordNotFound } from '../table/errors';
import { addressHolder, claimAddress, releaseAddress } from './address-repository';
import { identities, type AddressRegistration } from './identity-port';

/**
 * Register a sender's address for the account. The holder of the address (the first account to save
 * it) registers it with the identity port, which says who mails the verification; another account
 * always gets our own signed link (`registered`), since SES's verification is the holder's.
 */
export async function registerSenderAddress(accountId: number, address: string): Promise<AddressRegistration> {
  if (!(await claimAddress(accountId, address))) return 'registered';
  return identities().registerAddress(address, { templateName: config().senderVerificationTemplate });
}

/** Whether the address's own identity is verified, and this account holds it (so SES's word counts). */
export async function ownAddressVerified(accountId: number, address: string): Promise<boolean> {
  if ((await addressHolder(address)) !== accountId) return false;
  return identities().addressVerified(address);
}

/**
 * Whether the sender is verified, asking the identity port when it is not yet: an address SES has
 * verified for this account verifies the sender (releasing its waiting sends), as our link would.
 * RecordNotFound when the sender is gone.
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
 * the old address, the account gives it up and, if it held it, its SES identity is deleted, so the
 * next account to save the address proves it afresh instead of inheriting this one's verification.
 */
export async function releaseAddressIfUnused(accountId: number, address: string, exceptId?: number): Promise<void> {
  if (await addressInUse(accountId, address, exceptId)) return;
  if ((await addressHolder(address)) !== accountId) return;
  // The identity first: should its deletion fail, the claim stays, and nobody inherits the verification.
  await identities().deleteAddress(address);
  await releaseAddress(accountId, address);
}
