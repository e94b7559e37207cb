// `contacts/resend-confirmation`: a pending contact's double opt-in confirmation mail, owed again.
import { resendOptInMail } from '../../shared/audience/opt-in-resend';
import { RateLimited, ValidationError } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { validate } from '../../shared/validation';
import { contactId } from './operations';

export const resendQueuedMessage = 'Confirmation Mail Queued Successfully';
export const alreadyConfirmedMessage = 'The contact has already confirmed its subscription.';
export const noOptInSenderMessage = "The contact's type has no opt-in sender to send the confirmation mail from.";
export const resendTooSoonMessage = 'Please wait before requesting another confirmation mail for this contact.';

export const resendConfirmation = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { contact_id: contactId });
  const resend = await resendOptInMail(account.id, input.contact_id);
  if (resend.outcome === 'confirmed') throw ValidationError.of('contact_id', alreadyConfirmedMessage);
  if (resend.outcome === 'no-sender') throw ValidationError.of('contact_id', noOptInSenderMessage);
  // A mail asked for too soon is answered as sender/resend-mail answers one: 429 with Retry-After.
  if (resend.outcome === 'too-soon') throw new RateLimited(resendTooSoonMessage, resend.retryAfterSeconds);
  // Still owed from before: that mail goes, as queued as a new one.
  return ok(resendQueuedMessage);
});
