// Keys of notification recipients.
import { type Key, entityKey, entityPartition } from '../table/keys';

// Notification recipients

export const NOTIFICATION_RECIPIENT = 'notification-recipient';

export function notificationRecipientKey(accountId: number, id: number): Key {
  return entityKey(accountId, NOTIFICATION_RECIPIENT, id);
}

export function notificationRecipientPartition(accountId: number): string {
  return entityPartition(accountId, NOTIFICATION_RECIPIENT);
}

/** The item that claims an address among the account's notification recipients (case-insensitive). */
export function notificationRecipientAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'notification-recipient-address'), sk: email.toLowerCase() };
}
