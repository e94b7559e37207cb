// A pending contact pressed the button of its confirmation mail: it is confirmed, the press is written
// to its activity, and it joins what it was kept out of while pending: the live automations of its
// type and of the segments it is in. From then on sends and automations mail it.
import { onContactsJoined, onSegmentJoined } from '../automation-runs/enrolment-service';
import { recordOptInConfirmed } from '../contacts/activity';
import type { ContactRecord } from '../contacts/record';
import { confirmSubscription, type SubscriptionConfirmation } from '../contacts/subscription';
import { settleOptInMail, optInMailKey } from '../contacts/opt-in-outbox';
import { recipientItemsAt } from '../segments/recipients';
import { listSegmentRulesOfContactType } from '../segments/repository';
import { describeError, log } from '../log';

/** Enrol a newly confirmed contact in the live automations of its type and of each segment holding it. */
async function enrolConfirmed(accountId: number, contact: ContactRecord): Promise<void> {
  const joiner = { contactId: contact.id, email: contact.email };
  await onContactsJoined(accountId, contact.contact_type_id, [contact]);
  for (const segment of await listSegmentRulesOfContactType(accountId, contact.contact_type_id)) {
    const { found } = await recipientItemsAt(accountId, segment.id, [contact.email.toLowerCase()], { consistentRead: true });
    const held = [...found.values()].some((item) => Number((item.contact as { contact_id?: unknown } | undefined)?.contact_id) === contact.id);
    if (held) await onSegmentJoined(accountId, segment.id, [joiner]);
  }
}

/**
 * Confirm the contact the link names, at the address it was mailed. A second press finds it
 * confirmed already (and enrols nothing twice); a contact deleted or moved to another address is gone.
 */
export async function confirmOptIn(accountId: number, contactId: number, email: string): Promise<SubscriptionConfirmation['outcome']> {
  const confirmation = await confirmSubscription(accountId, contactId, email);
  if (confirmation.outcome !== 'confirmed') return confirmation.outcome;
  const { contact } = confirmation;
  // The contact is confirmed: what follows must not turn the press into an error page, so each
  // failure is logged (the activity line or an enrolment is what would be missing).
  await Promise.all([
    recordOptInConfirmed(accountId, contact.email).catch((error: unknown) => log.error('opt-in confirmation not recorded in the activity', { accountId, contactId, ...describeError(error) })),
    // Pressed before its mail's run settled it (a retried mail): it is owed nothing more.
    settleOptInMail(optInMailKey(accountId, contactId)).catch(() => undefined),
    enrolConfirmed(accountId, contact).catch((error: unknown) => log.error('confirmed contact not enrolled', { accountId, contactId, ...describeError(error) })),
  ]);
  return 'confirmed';
}
