// A sender's confirmation as a use case: the sender is marked verified (only at the address the mail
// went to), then everything that waited for it moves on: the single sends saved naming it, or held
// by the dispatcher when its address changed, are released and booked, and the account's confirmation
// mailer runs for the double opt-in mails that waited for it.
import { releaseSendsOfSender } from '../send-gates/sender-gate-service';
import { confirmSenderAddress, type Confirmation, type VerificationRoute } from '../senders/repository';
import { wakeOptInMails } from '../audience/opt-in-schedule';

/**
 * Verify the sender at `confirmedEmail` (by its address, or by its verified domain) and release the
 * sends waiting for it. A second confirmation (already verified) releases again: a release cut short
 * by a failure is finished by pressing again. RecordNotFound when the sender is gone.
 */
export async function verifySender(accountId: number, senderId: number, confirmedEmail: string, by: VerificationRoute = 'address'): Promise<Confirmation> {
  const outcome = await confirmSenderAddress(accountId, senderId, confirmedEmail, by);
  if (outcome !== 'address-changed') {
    await releaseSendsOfSender(accountId, senderId);
    // Double opt-in confirmation mails owed from this sender waited for it too.
    await wakeOptInMails(accountId);
  }
  return outcome;
}
