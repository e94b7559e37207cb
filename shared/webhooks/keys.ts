// Keys of outbound webhooks: the records, and the item counting them (an account's limit holds under races).
import { type Key, entityKey, entityPartition } from '../table/keys';

export const WEBHOOK = 'webhook';

export function webhookKey(accountId: number, id: number): Key {
  return entityKey(accountId, WEBHOOK, id);
}

export function webhookPartition(accountId: number): string {
  return entityPartition(accountId, WEBHOOK);
}

/** The item holding how many webhooks the account has; saves and deletes move it in their transaction. */
export function webhookCountKey(accountId: number): Key {
  return { pk: entityPartition(accountId, 'webhook-count'), sk: 'count' };
}
