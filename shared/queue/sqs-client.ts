// The SQS client and each queue's URL, shared by the sending side (aws-queue.ts) and the consumers'
// visibility changes (visibility.ts), so a consumer that never sends does not bundle the sender.
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClient } from '../aws-clients';
import { requiredEnv } from '../config';
import { queueUrlEnvName, type QueueName } from './queues';

export const sqsClient = awsClient(({ region }) => new SQSClient({ region }));

export function queueUrl(queue: QueueName): string {
  return requiredEnv(queueUrlEnvName(queue));
}
