// The queue port on AWS: SendMessageBatch in chunks that SQS accepts, resending only the entries
// SQS reports as failed.
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { maxBatchBytes, maxBatchSize, type QueueName } from './queues';
import { queueUrl, sqsClient } from './sqs-client';

export { sqsClient };

/** Chunks of at most 10 messages and 256 KiB each. */
export function batchesOf(bodies: string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body);
    if (current.length === maxBatchSize || (current.length > 0 && bytes + size > maxBatchBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(body);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const maxAttempts = 5;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function sendBatch(url: string, bodies: string[], group: string | undefined, delaySeconds: number): Promise<void> {
  // MessageGroupId on a standard queue makes it a fair queue: SQS serves groups fairly under a backlog.
  let entries: SendMessageBatchRequestEntry[] = bodies.map((body, index) => ({
    Id: String(index),
    MessageBody: body,
    ...(group === undefined ? {} : { MessageGroupId: group }),
    ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
  }));
  for (let attempt = 1; ; attempt++) {
    const result = await sqsClient().send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    const failed = result.Failed ?? [];
    if (failed.length === 0) return;
    // A sender fault (a malformed entry) fails the same way every time; only service faults are retried.
    const senderFault = failed.find((entry) => entry.SenderFault);
    if (senderFault) throw new Error(`SQS refused a message: ${senderFault.Code ?? ''} ${senderFault.Message ?? ''}`.trim());
    if (attempt === maxAttempts) {
      throw new Error(`SQS failed ${failed.length} message(s) after ${maxAttempts} attempts: ${failed[0]?.Code ?? 'unknown'}`);
    }
    const failedIds = new Set(failed.map((entry) => entry.Id));
    entries = entries.filter((entry) => failedIds.has(entry.Id));
    await sleep(100 * 2 ** (attempt - 1));
  }
}

export async function sendToSqs(queue: QueueName, bodies: string[], group?: string, delaySeconds = 0): Promise<void> {
  const url = queueUrl(queue);
  for (const batch of batchesOf(bodies)) await sendBatch(url, batch, group, delaySeconds);
}
