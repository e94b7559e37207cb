// Deliveries parked in the table while their webhook's circuit is open: one small item each, holding
// the queue message as it would be sent again, in the order parked within each shard, until the
// circuit closes and they are queued again, or until they expire.
import { createHash } from 'node:crypto';
import { batchWriteAll, deleteRequest } from '../table/batch';
import type { Key } from '../table/keys';
import { putItem, queryPageAfter } from '../table/records';
import { parkedDeliveryPartition, parkedDeliveryShards } from './keys';

/** How long a parked delivery is kept: a receiver down longer than three days misses those events. */
export const parkedRetentionSeconds = 3 * 24 * 3600;

export interface ParkedDelivery {
  key: Key;
  /** The delivery's queue message (JSON). */
  body: string;
  /** Past its retention (TTL removes expired items only within days, so reads skip them). */
  expired: boolean;
}

/** A delivery's shard: fixed by its id, so parking the same delivery twice lands in one shard. */
function shardOf(deliveryId: string): number {
  return createHash('sha256').update(deliveryId).digest().readUInt32BE(0) % parkedDeliveryShards;
}

/** Park one delivery at `now` (epoch ms). */
export async function parkDelivery(accountId: number, webhookId: number, deliveryId: string, body: string, now: number): Promise<void> {
  await putItem({
    Item: {
      pk: parkedDeliveryPartition(accountId, webhookId, shardOf(deliveryId)),
      // Oldest first within a shard, so the probe tries the longest-waiting delivery.
      sk: `${String(now).padStart(15, '0')}#${deliveryId}`,
      entity: 'webhook-parked-delivery',
      body,
      expires_at: Math.floor(now / 1000) + parkedRetentionSeconds,
    },
  });
}

/**
 * Up to `limit` of one shard's parked deliveries, oldest first, from just after the sort key `after`
 * (a position, not DynamoDB's cursor, so a reader that removed what it read never sees it again),
 * and whether the shard holds more.
 */
export async function parkedDeliveries(
  accountId: number,
  webhookId: number,
  shard: number,
  options: { limit: number; now: number; after?: string },
): Promise<{ parked: ParkedDelivery[]; more: boolean }> {
  const page = await queryPageAfter({ partition: parkedDeliveryPartition(accountId, webhookId, shard), limit: options.limit, ...(options.after === undefined ? {} : { after: options.after }) });
  return {
    parked: page.items.map((item) => ({ key: { pk: String(item.pk), sk: String(item.sk) }, body: String(item.body), expired: Number(item.expires_at) * 1000 <= options.now })),
    more: page.next !== undefined,
  };
}

export async function removeParkedDeliveries(keys: readonly Key[]): Promise<void> {
  if (keys.length > 0) await batchWriteAll(keys.map(deleteRequest));
}
