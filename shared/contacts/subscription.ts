// A contact's consent in a double-opt-in type: confirming it when its button is pressed.
import { isoTimestamp } from '../time';
import { fieldsByName, toContactRecord } from './items';
import type { ContactRecord } from './record';
import { listCustomFields } from '../custom-fields/repository';
import { contactKey } from './keys';
import { getItem, unlessConditionFails, updateItem } from '../table/records';

/** What pressing a confirmation button did to its contact. */
export type SubscriptionConfirmation = { outcome: 'confirmed'; contact: ContactRecord } | { outcome: 'already-confirmed' | 'gone' };

/**
 * Confirm a pending contact's subscription, only while it still has the address its mail went to
 * (`email` as it was stored then). A second press finds it confirmed; a contact deleted or moved to
 * another address since is gone for the link.
 */
export async function confirmSubscription(accountId: number, contactId: number, email: string): Promise<SubscriptionConfirmation> {
  const fields = fieldsByName(await listCustomFields(accountId));
  const now = isoTimestamp();
  const result = await unlessConditionFails(
    updateItem({
      Key: contactKey(accountId, contactId),
      UpdateExpression: 'SET subscription_status = :confirmed, confirmed_at = :now, updated_at = :now',
      ConditionExpression: 'email = :email AND subscription_status = :pending',
      ExpressionAttributeValues: { ':confirmed': 'confirmed', ':pending': 'pending', ':now': now, ':email': email },
      ReturnValues: 'ALL_NEW',
    }),
  );
  if (result?.Attributes) return { outcome: 'confirmed', contact: toContactRecord(result.Attributes, fields) };
  const current = await getItem(contactKey(accountId, contactId), { consistent: true });
  return current?.email === email ? { outcome: 'already-confirmed' } : { outcome: 'gone' };
}
