// Taking an address off the account's bounce and complaint list as a use case: the record here and,
// deployed, SES's account-level suppression list (shared/mail/suppression-list.ts), which would
// otherwise drop the next mail and report the address as bounced again.
import { suppressionList, type SuppressionListAdapter } from '../mail/suppression-list';
import { deleteBouncedAddress, getBouncedAddress, type BouncedAddress } from '../suppressions/bounces';

/**
 * Delete the account's entry for the address (any letter case). The entry is read first, so an
 * address the account never had suppressed is RecordNotFound without touching SES (one SES list
 * serves every account). SES is cleared before our record is deleted: if SES fails, both stay as
 * they were and the request can simply be retried (clearing an address SES no longer has is a no-op).
 * The list is the runtime's port unless a test hands in its own.
 */
export async function removeBouncedAddress(accountId: number, email: string, list: SuppressionListAdapter = suppressionList()): Promise<BouncedAddress> {
  const entry = await getBouncedAddress(accountId, email);
  await list.clearSuppressedDestination(entry.email_address);
  return deleteBouncedAddress(accountId, email);
}
