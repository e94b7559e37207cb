// Retrying a received message later than the queue's usual redelivery: SQS ChangeMessageVisibility
// deployed, the same per-message delay in the local queue. The way to back off for longer than SQS's
// 15-minute DelaySeconds allows; the consumer then reports the message as failed.
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { localQueue } from './local-adapter';
import type { QueueName } from './queues';
import { queueUrl, sqsClient } from './sqs-client';

/** SQS's longest visibility timeout: 12 hours. */
export const maxVisibilitySeconds = 43_200;

/** Ask for a received message (by its receipt handle) to come back no sooner than `seconds` from now. */
export async function retryMessageAfter(queue: QueueName, receiptHandle: string, seconds: number): Promise<void> {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > maxVisibilitySeconds) {
    throw new Error(`A visibility timeout is 0 to ${maxVisibilitySeconds} whole seconds, got ${seconds}`);
  }
  if (config().runtime === 'local') {
    localQueue().changeLocalVisibility(queue, receiptHandle, seconds);
    return;
  }
  await sqsClient().send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(queue), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}
