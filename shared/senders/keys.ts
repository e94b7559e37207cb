// Keys of senders.
import { type Key, entityKey, entityPartition } from '../table/keys';

// Senders

export const SENDER = 'sender';

export function senderKey(accountId: number, id: number): Key {
  return entityKey(accountId, SENDER, id);
}

export function senderPartition(accountId: number): string {
  return entityPartition(accountId, SENDER);
}
