// A message as the local queue keeps it, and the SQS record a Lambda consumer receives for it.
import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { config } from '../config';
import type { QueueName } from './queues';

export interface LocalMessage {
  messageId: string;
  body: string;
  group: string | undefined;
  receiveCount: number;
  sentAt: number;
  firstReceivedAt?: number;
  /** Epoch ms before which it is not delivered: SQS DelaySeconds. */
  visibleAt?: number;
}

/** The SQS record of one receive of `message`, as the event source mapping hands it to Lambda. */
export function toRecord(queue: QueueName, message: LocalMessage): SQSRecord {
  const { region } = config();
  return {
    messageId: message.messageId,
    receiptHandle: `${message.messageId}#${message.receiveCount}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'LOCAL',
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
      ...(message.group === undefined ? {} : { MessageGroupId: message.group }),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${region}:000000000000:${queue}`,
    awsRegion: region,
  };
}
