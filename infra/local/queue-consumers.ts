// Wires each local queue to its consumer function (`functions/<consumer>/handler.ts`), loaded when the
// first batch arrives, as Lambda's SQS event source mapping would invoke it.
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { type QueueConsumer } from '../../shared/queue/local-queue-settings';
import { queueConsumers, queueNames, type QueueName } from '../../shared/queue/queues';
import { loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';

type SqsFunction = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse | void>;

/** The consumer function of `queue`, invoked as the event source mapping would, each batch with a context of its own. */
export function functionConsumer(queue: QueueName): QueueConsumer {
  const functionName = queueConsumers[queue];
  return (event) => {
    const handler = loadFunctionHandler(functionName) as SqsFunction;
    return handler(event, lambdaContext(functionName, randomUUID()));
  };
}

/** Register every queue's consumer function; returns a function that removes them again. */
export function registerFunctionConsumers(): () => void {
  const removers = queueNames.map((queue) => registerLocalConsumer(queue, functionConsumer(queue)));
  return () => removers.forEach((remove) => remove());
}
