// The SQS client and each queue's URL, for the sending side (aws-queue.ts).
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClient } from '../aws-clients';
import { requiredEnv } from '../config';
import { queueUrlEnvName, type QueueName } from './queues';

export const sqsClient = awsClient(({ region }) => new SQSClient({ region }));

export function queueUrl(queue: QueueName): string {
  return requiredEnv(queueUrlEnvName(queue));
}
