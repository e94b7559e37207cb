// Notification recipients (addresses that get the account's service mail, e.g. send summaries):
// every table access for them. Each address is held once per account through an address item.
import { isoTimestamp } from '../time';
import { deleteAllOrNothing } from '../table/bulk-delete';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { NOTIFICATION_RECIPIENT, notificationRecipientAddressKey, notificationRecipientKey, notificationRecipientPartition } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, queryAll, withoutKeys, type Item } from '../table/records';
import { committed, transactWrite, type TransactionAction } from '../table/transactions';

export interface NotificationRecipient {
  id: number;
  user_id: number;
  email_address: string;
  email_owner: string;
  created_at: string;
  updated_at: string;
}

function toRecipient(item: Item): NotificationRecipient {
  const { id, user_id, email_address, email_owner, created_at, updated_at } = withoutKeys<NotificationRecipient>(item);
  return { id, user_id, email_address, email_owner, created_at, updated_at };
}

/** The account's notification recipients in id order (also the address list of the send-summary mail). */
export async function listNotificationRecipients(accountId: number): Promise<NotificationRecipient[]> {
  return (await queryAll({ partition: notificationRecipientPartition(accountId) })).map(toRecipient);
}

/** One page of the account's notification recipients, in id order. */
export async function listNotificationRecipientsPage(accountId: number, page: PageRequest): Promise<ListPage<NotificationRecipient>> {
  return mapPage(await queryListPage({ partition: notificationRecipientPartition(accountId) }, page), toRecipient);
}

/**
 * Add a recipient; undefined when the address (in any letter case) is already one, decided by a
 * conditional put on the address item so two concurrent requests cannot both add it.
 */
export async function addNotificationRecipient(
  accountId: number,
  input: { email_address: string; email_owner: string },
): Promise<NotificationRecipient | undefined> {
  const id = await nextId(accountId, NOTIFICATION_RECIPIENT);
  const now = isoTimestamp();
  const recipient: NotificationRecipient = { id, user_id: accountId, ...input, created_at: now, updated_at: now };
  const added = await committed(
    transactWrite([
      {
        Put: {
          Item: { ...notificationRecipientAddressKey(accountId, input.email_address), entity: `${NOTIFICATION_RECIPIENT}-address`, id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          Item: { ...notificationRecipientKey(accountId, id), entity: NOTIFICATION_RECIPIENT, ...recipient },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
  );
  // The record's id is fresh from the counter, so only the address item can refuse.
  if (!added) return undefined;
  return recipient;
}

function addressItemDeletes(accountId: number, items: Item[]): TransactionAction[] {
  return items.map((item) => ({
    Delete: { Key: notificationRecipientAddressKey(accountId, String(item.email_address)) },
  }));
}

export async function deleteNotificationRecipient(accountId: number, id: number): Promise<void> {
  const key = notificationRecipientKey(accountId, id);
  const item = await getItem(key);
  if (!item) throw new RecordNotFound(NOTIFICATION_RECIPIENT, id);
  const deleted = await committed(
    transactWrite([
      { Delete: { Key: key, ConditionExpression: 'attribute_exists(pk)' } },
      ...addressItemDeletes(accountId, [item]),
    ]),
  );
  // Deleted by a concurrent request between the read and the write.
  if (!deleted) throw new RecordNotFound(NOTIFICATION_RECIPIENT, id);
}

/** Delete every listed recipient or, when any id is unknown in the account, none. */
export async function deleteNotificationRecipients(accountId: number, ids: number[]): Promise<void> {
  await deleteAllOrNothing({
    accountId,
    entity: NOTIFICATION_RECIPIENT,
    keys: ids.map((id) => notificationRecipientKey(accountId, id)),
    plan: (items) => items.map((item) => ({ writes: addressItemDeletes(accountId, [item]) })),
  });
}
