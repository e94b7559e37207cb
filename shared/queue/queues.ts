// The queues, the function that consumes each, and the limits SQS puts on a message, so both
// adapters refuse what SQS would.

export const queueNames = ['deliveries', 'imports', 'jobs', 'webhooks', 'ses-events'] as const;

export type QueueName = (typeof queueNames)[number];

/** The function consuming each queue: `functions/<consumer>/handler.ts`, called with an SQSEvent. */
export const queueConsumers: Record<QueueName, string> = {
  deliveries: 'send-deliver',
  imports: 'contact-import',
  jobs: 'background-jobs',
  webhooks: 'webhook-deliver',
  // SES's configuration-set events, put on the queue by an EventBridge rule (nothing in the service sends them).
  'ses-events': 'ses-events',
};

/** The environment variable holding a queue's URL, e.g. `QUEUE_URL_DELIVERIES`. */
export function queueUrlEnvName(queue: QueueName): string {
  return `QUEUE_URL_${queue.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * Receives of one message before it moves to its queue's dead-letter queue (the redrive policy): a
 * consumer gives up on the last one (the deliverer records its recipients, a job is marked failed).
 * At least 5, as AWS advises for Lambda consumers: a batch the poller received while the function
 * was throttled (at its maximum or reserved concurrency, or the account's) counts as a receive too.
 */
export const maxReceiveCount = 5;

/**
 * Queues whose messages are received more often than `maxReceiveCount` before they dead-letter. A
 * webhook message comes back only when its consumer failed (its retries are new messages,
 * shared/webhook-delivery/delivery-queue.ts); a probe or drain lost there would leave a webhook's parked
 * deliveries waiting, so it is given more tries.
 */
export const queueMaxReceiveCounts: Partial<Record<QueueName, number>> = { webhooks: 8 };

/** Receives of one message of `queue` before it moves to the dead-letter queue. */
export function maxReceiveCountOf(queue: QueueName): number {
  return queueMaxReceiveCounts[queue] ?? maxReceiveCount;
}

/** SQS's longest DelaySeconds: 15 minutes. */
export const maxDelaySeconds = 900;

/** SQS takes up to 10 messages per SendMessageBatch and hands a Lambda up to 10 per event without a batching window. */
export const maxBatchSize = 10;

/**
 * Messages per event each queue's consumer receives (the event source's batch size). Deliveries one
 * at a time: a delivery message holds up to 50 recipients mailed at the SES rate, and every message
 * of an event waits for those before it, so with ten a newcomer's mail would wait behind up to 500 of
 * another account's per container; with one, SQS's fair queue picks the next message for each
 * container as soon as its current one is done (docs/architecture.md: Fair delivery).
 */
export const queueBatchSizes: Readonly<Record<QueueName, number>> = {
  deliveries: 1,
  imports: maxBatchSize,
  jobs: maxBatchSize,
  webhooks: maxBatchSize,
  // A batch counts each send's deliveries in one write and is one invocation: the bigger, the cheaper
  // a mail (docs/benchmarks.md: Cost per million mails).
  'ses-events': 100,
};

/**
 * How long the event source gathers messages toward a full batch before it invokes the consumer
 * (MaximumBatchingWindowInSeconds; Lambda requires one for a batch over 10). SES's events wait up to
 * this long to be counted, which nobody watching a send's statistics notices; without it a batch at
 * SES's starting rate of 14 mails a second would hold one or two events.
 */
export const queueBatchingWindowSeconds: Readonly<Partial<Record<QueueName, number>>> = { 'ses-events': 5 };

// 256 KiB is the SQS message and batch limit that holds in every region and account.
export const maxBatchBytes = 262_144;

/** Serialize message bodies; throws when one could never fit in SQS. */
export function serializeBodies(queue: QueueName, bodies: unknown[]): string[] {
  return bodies.map((body, index) => {
    const text = JSON.stringify(body);
    if (text === undefined) throw new Error(`Message ${index} for queue '${queue}' is not JSON-serializable`);
    if (Buffer.byteLength(text) > maxBatchBytes) {
      throw new Error(`Message ${index} for queue '${queue}' is ${Buffer.byteLength(text)} bytes; SQS takes ${maxBatchBytes}`);
    }
    return text;
  });
}
