// Wires each local queue to its consumer function (`functions/<consumer>/handler.ts`), loaded when the
// first batch arrives, as Lambda's SQS event source mapping would invoke it.
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { queueConsumers, queueNames } from '../../shared/queue/queues';
import { loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';

type SqsFunction = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse | void>;

/** Register every queue's consumer function; returns a function that removes them again. */
export function registerFunctionConsumers(): () => void {
  const removers = queueNames.map((queue) => {
    const functionName = queueConsumers[queue];
    return registerLocalConsumer(queue, (event) => {
      const handler = loadFunctionHandler(functionName) as SqsFunction;
      return handler(event, lambdaContext(functionName, randomUUID()));
    });
  });
  return () => removers.forEach((remove) => remove());
}
