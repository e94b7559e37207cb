// The queue port: put messages on a queue for its consumer function. The adapter is chosen here, and
// only here, from the runtime (SQS on AWS, the in-process queue locally).
import { config } from '../config';
import { sendToSqs } from './aws-queue';
import { localQueue } from './local-adapter';
import { maxDelaySeconds, serializeBodies, type QueueName } from './queues';

export { maxDelaySeconds, queueConsumers, queueNames, type QueueName } from './queues';

export interface SendOptions {
  /**
   * The message group of every message sent (SQS MessageGroupId), e.g. the account id. On a standard
   * queue this makes it a fair queue: when one group builds a backlog, the other groups' messages are
   * still delivered promptly. It does not make the queue FIFO. Without it, messages share one group.
   */
  group?: string;
  /**
   * SQS DelaySeconds of every message sent: none is delivered sooner. 0 to 900 whole seconds (SQS's
   * limit); a longer wait is several sends in a row.
   */
  delaySeconds?: number;
}

/** Send each body (JSON-serialized) as one message; resolves once the queue has accepted all of them. */
export async function sendMessages(queue: QueueName, bodies: unknown[], options: SendOptions = {}): Promise<void> {
  if (bodies.length === 0) return;
  const messages = serializeBodies(queue, bodies);
  const { group, delaySeconds = 0 } = options;
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > maxDelaySeconds) {
    throw new Error(`A message delay is 0 to ${maxDelaySeconds} whole seconds, got ${delaySeconds}`);
  }
  if (group !== undefined && !/^[\x21-\x7e]{1,128}$/.test(group)) {
    // SQS takes 1 to 128 characters of alphanumerics and punctuation (!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~).
    throw new Error(`Message group '${group}' for queue '${queue}' is not a valid SQS MessageGroupId`);
  }
  if (config().runtime === 'local') {
    localQueue().enqueueLocal(queue, messages, group, delaySeconds);
    return;
  }
  await sendToSqs(queue, messages, group, delaySeconds);
}
