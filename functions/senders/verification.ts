// Sending a sender's verification mail, with `send_at` recording when it went out. The address is
// registered through the sending-identity port first: deployed, SES creates its identity and mails our
// branded custom verification mail itself; locally (and for an address another account holds) the
// mail is ours: a signed, expiring confirmation link, from the service's own system address. Each mail takes a
// place in the account's hourly system-mail budget first, so the service cannot be made to mail
// strangers in bulk; past the budget, and inside a resend's minimum interval, the answer is 429.
import { senderConfirmationValidHours, signSenderConfirmation } from '../../shared/senders/confirmation';
import { config } from '../../shared/config';
import { RateLimited } from '../../shared/errors';
import { claimVerificationMail, releaseVerificationMail, type Sender } from '../../shared/senders/repository';
import { claimSystemMail, releaseSystemMail, type SystemMailClaim } from '../../shared/system-mail/budget';
import { describeError, log } from '../../shared/log';
import { registerSenderAddress } from '../../shared/sender-verification/address-service';
import { sendMail } from '../../shared/mail/mailer';
import { senderVerificationMail } from '../../shared/mail/templates/sender-verification';

/** The least time between two verification mails to one sender when asked for a resend. */
export const resendIntervalSeconds = 60;

export const budgetSpentMessage = 'This account has sent as many verification mails as it may this hour. Please try again later.';
export const resendTooSoonMessage = 'Please wait before requesting another verification mail.';

/** The public confirmation page's address with this sender's signed token. */
export function confirmationUrl(sender: Pick<Sender, 'user_id' | 'id' | 'from_email'>): string {
  const token = signSenderConfirmation({ accountId: sender.user_id, senderId: sender.id, email: sender.from_email });
  return `${config().publicBaseUrl}public/senders/confirm?token=${encodeURIComponent(token)}`;
}

/** A place in the account's budget for one verification mail; 429 with Retry-After when it is spent. */
export async function claimVerificationBudget(accountId: number): Promise<SystemMailClaim> {
  const check = await claimSystemMail(accountId, 'verification');
  if (!check.allowed) throw new RateLimited(budgetSpentMessage, check.retryAfterSeconds);
  return check.claim;
}

/**
 * Run `change` (which stores what the mail will be about) with a budget place held, and give the
 * place back when it fails or reports that no mail is due, so a refused or failed request costs nothing.
 */
export async function withVerificationBudget<T>(accountId: number, change: () => Promise<T>, mailDue: (result: T) => boolean): Promise<{ result: T; budget?: SystemMailClaim }> {
  const budget = await claimVerificationBudget(accountId);
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await releaseSystemMail(budget);
    throw error;
  }
  if (mailDue(result)) return { result, budget };
  await releaseSystemMail(budget);
  return { result };
}

/**
 * Send the verification mail to the sender's current address, on a budget place already claimed.
 * With `minIntervalSeconds`, refuse (429) when the last one went out more recently. Whatever stops
 * the mail gives the budget place back; a mail that fails is not recorded as sent and the error is thrown.
 */
export async function sendVerificationMail(accountId: number, senderId: number, budget: SystemMailClaim, minIntervalSeconds = 0): Promise<void> {
  try {
    const claim = await claimVerificationMail(accountId, senderId, minIntervalSeconds);
    if (!claim.claimed) throw new RateLimited(resendTooSoonMessage, claim.retryAfterSeconds);
    const { sender } = claim;
    try {
      if ((await registerSenderAddress(accountId, sender.from_email)) === 'registered') {
        const mail = senderVerificationMail({
          accountId,
          fromEmail: sender.from_email,
          confirmUrl: confirmationUrl(sender),
          validForHours: senderConfirmationValidHours,
        });
        await sendMail({ from: config().systemFromEmail, to: [sender.from_email], ...mail });
      }
    } catch (error) {
      await releaseVerificationMail(accountId, senderId, sender.send_at as string, claim.previousSendAt);
      throw error;
    }
  } catch (error) {
    await releaseSystemMail(budget);
    throw error;
  }
}

/**
 * Send the mail that follows a save or an address change. The sender is already stored, so a mail
 * failure must not turn the save into an error a client would retry (and duplicate): it is logged,
 * `send_at` stays as it was, and sender/resend-mail reports the failure if it persists.
 */
export async function sendVerificationMailAfterChange(accountId: number, senderId: number, budget: SystemMailClaim, requestId: string): Promise<void> {
  try {
    await sendVerificationMail(accountId, senderId, budget);
  } catch (error) {
    log.error('sender verification mail failed', { requestId, accountId, senderId, ...describeError(error) });
  }
}
