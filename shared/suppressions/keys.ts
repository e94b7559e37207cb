// Keys of global unsubscribes, unsubscribe groups and their recipients.
import { type Key, entityKey, entityPartition, idSortKey } from '../table/keys';

// Global unsubscribes and unsubscribe groups (suppression lists)

export const GLOBAL_UNSUBSCRIBE = 'global-unsubscribe';

export const UNSUBSCRIBE_GROUP = 'unsubscribe-group';

export const UNSUBSCRIBE_GROUP_RECIPIENT = 'unsubscribe-group-recipient';

export function globalUnsubscribeKey(accountId: number, id: number): Key {
  return entityKey(accountId, GLOBAL_UNSUBSCRIBE, id);
}

export function globalUnsubscribePartition(accountId: number): string {
  return entityPartition(accountId, GLOBAL_UNSUBSCRIBE);
}

/** The partition of the global list's addresses, in address order. */
export function globalUnsubscribeAddressPartition(accountId: number): string {
  return entityPartition(accountId, 'global-unsubscribe-address');
}

/** The item that holds an address on the account's global list (case-insensitive): one GetItem answers "suppressed?". */
export function globalUnsubscribeAddressKey(accountId: number, email: string): Key {
  return { pk: globalUnsubscribeAddressPartition(accountId), sk: email.toLowerCase() };
}

export function unsubscribeGroupKey(accountId: number, id: number): Key {
  return entityKey(accountId, UNSUBSCRIBE_GROUP, id);
}

export function unsubscribeGroupPartition(accountId: number): string {
  return entityPartition(accountId, UNSUBSCRIBE_GROUP);
}

/** A group recipient by its id (ids are per account, across groups, as the spec's delete by id needs). */
export function unsubscribeGroupRecipientKey(accountId: number, id: number): Key {
  return entityKey(accountId, UNSUBSCRIBE_GROUP_RECIPIENT, id);
}

/** The partition of one group's addresses: its recipient list is one Query. */
export function unsubscribeGroupAddressPartition(accountId: number, groupId: number): string {
  return entityPartition(accountId, `unsubscribe-group-address#${groupId}`);
}

/** The item that holds an address in one group (case-insensitive): one GetItem answers "in the group?". */
export function unsubscribeGroupAddressKey(accountId: number, groupId: number, email: string): Key {
  return { pk: unsubscribeGroupAddressPartition(accountId, groupId), sk: email.toLowerCase() };
}

/** The gsi1 partition listing one unsubscribe group's recipients in id order (their address items are keyed by address). */
export function unsubscribeGroupRecipientIdIndexPartition(accountId: number, groupId: number): string {
  return entityPartition(accountId, `${UNSUBSCRIBE_GROUP_RECIPIENT}-by-id#${groupId}`);
}

/** The gsi1 keys a group recipient's record carries to appear in its group's id-ordered list. */
export function unsubscribeGroupRecipientIdIndexKey(accountId: number, groupId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: unsubscribeGroupRecipientIdIndexPartition(accountId, groupId), gsi1sk: idSortKey(id) };
}
