// The entry of every event function (scheduler targets, queue consumers, SES feedback): the
// invocation's trace subsegment and log context, the secrets loaded before any work, the age of queue messages, and the
// invocation's metrics written at the end, whether the work succeeded or not.
import type { Context, SQSEvent } from 'aws-lambda';
import { startLogInvocation } from './log';
import { countMetric, flushMetrics } from './metrics';
import { loadSecrets } from './secrets';
import { traceInvocation } from './tracing';

function isSqsEvent(event: unknown): event is SQSEvent {
  const records = (event as Partial<SQSEvent> | undefined)?.Records;
  return Array.isArray(records) && records.length > 0 && records[0]?.eventSource === 'aws:sqs';
}

/** How long the oldest message of a batch waited, the consumer-side view of the queue's age. */
function recordQueueAge(event: SQSEvent): void {
  const sentAt = event.Records.map((record) => Number(record.attributes?.SentTimestamp)).filter(Number.isFinite);
  if (sentAt.length === 0) return;
  countMetric('DeliveryQueueAgeSeconds', Math.max(0, (Date.now() - Math.min(...sentAt)) / 1000));
}

/** Wrap an event function's handler; a test may call it with a partial context or none. */
export function eventHandler<E, R, C extends Partial<Context> = Context>(
  handler: (event: E, context?: C) => Promise<R>,
): (event: E, context?: C) => Promise<R> {
  return (event, context) =>
    traceInvocation(context?.functionName ?? 'handler', async () => {
      startLogInvocation(context);
      try {
        if (isSqsEvent(event)) recordQueueAge(event);
        await loadSecrets();
        return await handler(event, context);
      } finally {
        flushMetrics();
      }
    });
}
