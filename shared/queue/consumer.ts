// The one way an SQS consumer answers: Powertools' partial batch response. Records are handled one
// after another (delivery keeps to the SES rate, imports to the table's); a record whose handler
// throws is reported for redelivery, and the rest of the batch is acknowledged.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError, log } from '../log';
import { countMetric, type MetricName } from '../metrics';
import type { QueueName } from './queues';

/**
 * The metric each queue's consumer records its oldest message's wait under. The webhook queue has
 * none: its messages wait on purpose (retry backoff), so SQS's own age metric is the one to read.
 */
const ageMetrics: Partial<Record<QueueName, MetricName>> = { deliveries: 'DeliveryQueueAgeSeconds', imports: 'ImportQueueAgeSeconds', jobs: 'JobQueueAgeSeconds' };

/** How long the oldest message of a batch waited: the consumer-side view of its queue's age. */
function recordQueueAge(queue: QueueName, event: SQSEvent): void {
  const metric = ageMetrics[queue];
  if (metric === undefined) return;
  const sentAt = event.Records.map((record) => Number(record.attributes?.SentTimestamp)).filter(Number.isFinite);
  if (sentAt.length === 0) return;
  countMetric(metric, Math.max(0, (Date.now() - Math.min(...sentAt)) / 1000));
}

/** Thrown by a record handler that wants its message delivered again later; not an error to log. */
export class RedeliverMessage extends Error {
  override readonly name = 'RedeliverMessage';
  constructor(reason: string) {
    super(reason);
  }
}

/** Handle every record of one queue's event; the failed ones come back as `batchItemFailures`. */
export function consumeRecords(
  queue: QueueName,
  event: SQSEvent,
  context: Partial<Context> | undefined,
  what: string,
  handleRecord: (record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> {
  recordQueueAge(queue, event);
  const handle = async (record: SQSRecord) => {
    try {
      await handleRecord(record);
    } catch (error) {
      if (!(error instanceof RedeliverMessage)) log.error(`${what} failed`, { messageId: record.messageId, ...describeError(error) });
      throw error;
    }
  };
  // A processor per call: it holds the batch's state, and the local queue may run batches side by side.
  return processPartialResponse(event, handle, new BatchProcessor(EventType.SQS), {
    ...(context ? { context: context as Context } : {}),
    processInParallel: false,
    // A batch whose every record failed answers the same list rather than throwing: SQS redelivers
    // exactly those messages either way, and the local queue reads the list.
    throwOnFullBatchFailure: false,
  });
}
