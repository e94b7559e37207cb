// Batches of a single send that reached the deliverer while the send was paused for its reputation:
// one item per batch id under the send, holding the delivery message as it arrived, unmailed and
// unsettled (so the send cannot complete) until the resume queues them again.
import { batchWriteAll, deleteRequest } from '../table/batch';
import { entityPartition, type Key } from '../table/keys';
import { currentTime } from '../time';
import { putItem, queryEvery } from '../table/records';

/** Parked batches outlive a send deleted while paused for a while, then TTL removes them. */
const parkedRetentionSeconds = 30 * 24 * 3600;

function parkedPartition(accountId: number, utr: string): string {
  return entityPartition(accountId, `single-send-parked#${utr}`);
}

/** Keep a batch's message unmailed until the send resumes (a batch parked again replaces itself). */
export async function parkBatch(accountId: number, utr: string, batchId: string, body: string): Promise<void> {
  await putItem({
    Item: {
      pk: parkedPartition(accountId, utr),
      sk: batchId,
      entity: 'single-send-parked-batch',
      body,
      expires_at: Math.floor(currentTime().getTime() / 1000) + parkedRetentionSeconds,
    },
  });
}

export interface ParkedBatch {
  key: Key;
  body: string;
}

/** The send's parked batches, all of them. */
export async function listParkedBatches(accountId: number, utr: string): Promise<ParkedBatch[]> {
  const items = await queryEvery({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': parkedPartition(accountId, utr) },
    ConsistentRead: true,
  });
  return items.map((item) => ({ key: { pk: String(item.pk), sk: String(item.sk) }, body: String(item.body) }));
}

/** Remove parked batches once they are queued again. */
export async function removeParkedBatches(keys: readonly Key[]): Promise<void> {
  await batchWriteAll(keys.map(deleteRequest));
}
