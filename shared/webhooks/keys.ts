// Keys of outbound webhooks: the records, the item counting them (an account's limit holds under
// races), each webhook's circuit and the deliveries parked while it is open.
import { type Key, entityKey, entityPartition, idSortKey, shardPartition } from '../table/keys';

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

/** A webhook's circuit breaker: its failures in a row and, while open, its probe. Apart from the webhook, so listing webhooks never reads it. */
export function webhookCircuitKey(accountId: number, webhookId: number): Key {
  return entityKey(accountId, 'webhook-circuit', webhookId);
}

/**
 * Shards a webhook's parked deliveries are spread over: a busy account's dead receiver parks as fast
 * as its events happen, and one partition takes about 1,000 writes a second.
 */
export const parkedDeliveryShards = 4;

/** One shard of the deliveries parked for a webhook whose circuit is open. */
export function parkedDeliveryPartition(accountId: number, webhookId: number, shard: number): string {
  return shardPartition(entityPartition(accountId, `webhook-parked#${idSortKey(webhookId)}`), shard);
}
