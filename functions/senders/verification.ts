// Sending a sender's verification mail: a signed, expiring confirmation link to the from address,
// from the service's own system address, with `send_at` recording when it went out.
import { senderConfirmationValidHours, signSenderConfirmation } from '../../shared/senders/confirmation';
import { config } from '../../shared/config';
import { claimVerificationMail, releaseVerificationMail, type Sender } from '../../shared/senders/repository';
import { describeError, log } from '../../shared/log';
import { sendMail } from '../../shared/mail/mailer';
import { senderVerificationMail } from '../../shared/mail/templates/sender-verification';

/** The least time between two verification mails to one sender when asked for a resend. */
export const resendIntervalSeconds = 60;

/** The public confirmation page's address with this sender's signed token. */
export function confirmationUrl(sender: Pick<Sender, 'user_id' | 'id' | 'from_email'>): string {
  const token = signSenderConfirmation({ accountId: sender.user_id, senderId: sender.id, email: sender.from_email });
  return `${config().publicBaseUrl}public/senders/confirm?token=${encodeURIComponent(token)}`;
}

export type VerificationResult = { sent: true } | { sent: false; retryAfterSeconds: number };

/**
 * Send the verification mail to the sender's current address. With `minIntervalSeconds`, refuse when
 * the last one went out more recently. A mail that fails is not recorded as sent and the error is thrown.
 */
export async function sendVerificationMail(accountId: number, senderId: number, minIntervalSeconds = 0): Promise<VerificationResult> {
  const claim = await claimVerificationMail(accountId, senderId, minIntervalSeconds);
  if (!claim.claimed) return { sent: false, retryAfterSeconds: claim.retryAfterSeconds };
  const { sender } = claim;
  const mail = senderVerificationMail({
    fromName: sender.from_name,
    fromEmail: sender.from_email,
    confirmUrl: confirmationUrl(sender),
    validForHours: senderConfirmationValidHours,
  });
  try {
    await sendMail({ from: config().systemFromEmail, to: [sender.from_email], ...mail });
  } catch (error) {
    await releaseVerificationMail(accountId, senderId, sender.send_at as string, claim.previousSendAt);
    throw error;
  }
  return { sent: true };
}

/**
 * Send the mail that follows a save or an address change. The sender is already stored, so a mail
 * failure must not turn the save into an error a client would retry (and duplicate): it is logged,
 * `send_at` stays as it was, and sender/resend-mail reports the failure if it persists.
 */
export async function sendVerificationMailAfterChange(accountId: number, senderId: number, requestId: string): Promise<void> {
  try {
    await sendVerificationMail(accountId, senderId);
  } catch (error) {
    log.error('sender verification mail failed', { requestId, accountId, senderId, ...describeError(error) });
  }
}
