// The queue port: put messages on a queue for its consumer function. The adapter is chosen here, and
// only here, from the runtime (SQS on AWS, the in-process queue locally).
import { config } from '../config';
import { sendToSqs } from './aws-queue';
import { enqueueLocal } from './local-queue';
import { serializeBodies, type QueueName } from './queues';

export { queueConsumers, queueNames, type QueueName } from './queues';

/** Send each body (JSON-serialized) as one message; resolves once the queue has accepted all of them. */
export async function sendMessages(queue: QueueName, bodies: unknown[]): Promise<void> {
  if (bodies.length === 0) return;
  const messages = serializeBodies(queue, bodies);
  if (config().runtime === 'local') {
    enqueueLocal(queue, messages);
    return;
  }
  await sendToSqs(queue, messages);
}
