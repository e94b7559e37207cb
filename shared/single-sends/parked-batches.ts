// Batches of a single send that reached the deliverer while the send was paused for its reputation:
// one item per batch id under the send, holding the delivery message as it arrived, unmailed and
// unsettled (so the send cannot complete) until the resume queues them again.
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll, deleteRequest } from '../table/batch';
import { db, tableName } from '../table/client';
import { entityPartition, type Key } from '../table/keys';
import { currentTime } from '../time';

/** Parked batches outlive a send deleted while paused for a while, then TTL removes them. */
const parkedRetentionSeconds = 30 * 24 * 3600;

function parkedPartition(accountId: number, utr: string): string {
  return entityPartition(accountId, `single-send-parked#${utr}`);
}

/** Keep a batch's message unmailed until the send resumes (a batch parked again replaces itself). */
export async function parkBatch(accountId: number, utr: string, batchId: string, body: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk: parkedPartition(accountId, utr),
        sk: batchId,
        entity: 'single-send-parked-batch',
        body,
        expires_at: Math.floor(currentTime().getTime() / 1000) + parkedRetentionSeconds,
      },
    }),
  );
}

export interface ParkedBatch {
  key: Key;
  body: string;
}

/** The send's parked batches, all of them. */
export async function listParkedBatches(accountId: number, utr: string): Promise<ParkedBatch[]> {
  const parked: ParkedBatch[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': parkedPartition(accountId, utr) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) parked.push({ key: { pk: String(item.pk), sk: String(item.sk) }, body: String(item.body) });
    start = page.LastEvaluatedKey;
  } while (start);
  return parked;
}

/** Remove parked batches once they are queued again. */
export async function removeParkedBatches(keys: readonly Key[]): Promise<void> {
  await batchWriteAll(keys.map(deleteRequest));
}
