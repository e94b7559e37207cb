// A pending contact's confirmation mail, sent again when the contact lost or ignored the first: it is
// owed once more in the outbox and the mailer booked, as for a new pending contact, so it goes out
// the same way (the type's opt-in sender once verified, within the account's hourly budget). At most
// one resend per contact an hour (contacts/opt-in-resends.ts).
import { openContactType } from '../contact-types/repository';
import { oweOptInMail } from '../contacts/opt-in-outbox';
import { claimOptInResend, releaseOptInResend } from '../contacts/opt-in-resends';
import { getContact } from '../contacts/repository';
import { currentSender } from '../senders/repository';
import { expectOptInMails, mailOptInsSoon } from './opt-in-schedule';

/**
 * What a resend did: the mail is owed again (`queued`), or was owed still (`already-owed`: that mail
 * stands, none is added); or why not: the contact is confirmed, its type names no opt-in sender (double
 * opt-in turned off, the sender deleted), or the contact's resend of this hour is taken.
 */
export type OptInResend = { outcome: 'queued' | 'already-owed' | 'confirmed' | 'no-sender' } | { outcome: 'too-soon'; retryAfterSeconds: number };

/** Resend the contact's confirmation mail; an unknown contact throws RecordNotFound. Refusals write nothing. */
export async function resendOptInMail(accountId: number, contactId: number): Promise<OptInResend> {
  const contact = await getContact(accountId, contactId);
  if (contact.subscription_status !== 'pending') return { outcome: 'confirmed' };
  const type = await openContactType(accountId, contact.contact_type_id);
  // An unverified sender is a sender: the mail waits for its verification, as a first one does.
  const sender = type?.double_opt_in === 1 && type.opt_in_sender_id !== null ? await currentSender(accountId, type.opt_in_sender_id) : undefined;
  if (!sender) return { outcome: 'no-sender' };
  const claim = await claimOptInResend(accountId, contactId);
  if (!claim.claimed) return { outcome: 'too-soon', retryAfterSeconds: claim.retryAfterSeconds };
  let owed: boolean;
  try {
    // Listed before the write, as for a new pending contact: no mail is owed while its account is not.
    await expectOptInMails(accountId);
    owed = await oweOptInMail(contact);
  } catch (error) {
    // Nothing was queued: the caller may try again at once (the write's error is the one answered).
    await releaseOptInResend(claim).catch(() => undefined);
    throw error;
  }
  if (!owed) return { outcome: 'already-owed' };
  await mailOptInsSoon(accountId);
  return { outcome: 'queued' };
}
