// Request counters in the table: an atomic ADD per request, so every container of a function (and
// every function) shares one count per caller and window.
import { getItem, unlessConditionFails, updateItem } from '../table/records';
import type { Key } from '../table/keys';

/** Add `requests` (one by default) to a window's counter; the count including them. `expiresAt` (epoch seconds) lets TTL remove the item. */
export async function countRequest(key: Key, expiresAt: number, requests = 1): Promise<number> {
  const result = await updateItem({
    Key: key,
    UpdateExpression: 'ADD requests :requests SET expires_at = if_not_exists(expires_at, :expires)',
    ExpressionAttributeValues: { ':requests': requests, ':expires': expiresAt },
    ReturnValues: 'UPDATED_NEW',
  });
  return Number(result.Attributes?.requests ?? requests);
}

/** A window's count so far (0 when nothing was counted): a read, so a caller already at its limit writes nothing. */
export async function requestsCounted(key: Key): Promise<number> {
  return Number((await getItem(key, { projection: ['requests'] }))?.requests ?? 0);
}

/** Add one request only while the count is below `limit`; the new count, or undefined when the limit was reached. */
export async function countRequestBelow(key: Key, limit: number, expiresAt: number): Promise<number | undefined> {
  const result = await unlessConditionFails(
    updateItem({
      Key: key,
      UpdateExpression: 'ADD requests :one SET expires_at = if_not_exists(expires_at, :expires)',
      ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
      ExpressionAttributeValues: { ':one': 1, ':expires': expiresAt, ':limit': limit },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return result && Number(result.Attributes?.requests ?? 1);
}
