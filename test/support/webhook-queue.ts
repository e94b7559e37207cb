// The webhook queue played on a simulated clock, for tests of retries and the circuit breaker: what
// the deliverer queues is taken off the local queue with its delay, and handed to webhook-deliver once,
// as a first receive, when the simulated clock (shared/time.ts, which the deliverer reads) reaches it.
import type { SQSBatchResponse } from 'aws-lambda';
import { handler } from '../../functions/webhook-deliver/handler';
import { toRecord } from '../../shared/queue/local-message';
import { localQueueIdle, registerLocalConsumer, takeLocalMessages } from '../../shared/queue/local-queue';
import { resetClock, setClock } from '../../shared/time';

export interface QueuedWebhookMessage {
  messageId: string;
  body: Record<string, unknown>;
  /** The delay it was sent with, in seconds. */
  delaySeconds: number;
  /** Simulated epoch ms it is received at. */
  dueAt: number;
}

export interface WebhookQueueOnClock {
  now(): number;
  /** Move the clock on; messages due meanwhile are received late, at the new now, as SQS may hand them. */
  advance(ms: number): void;
  /** Messages queued and not yet received, soonest first. */
  queued(): Promise<QueuedWebhookMessage[]>;
  /** Move the clock to the soonest message and hand over every message due then (batches of 10); the messages handed. */
  next(): Promise<QueuedWebhookMessage[]>;
  /** Hand over messages until none is queued, or the next is due after `until`; the messages handed. */
  runUntil(until?: number): Promise<QueuedWebhookMessage[]>;
  /** webhook-deliver's answer to every batch handed over. */
  responses: SQSBatchResponse[];
}

/** Call at the top of a test file: installs the simulated clock and takes over the local webhook queue for the file. */
export function webhookQueueOnClock(): WebhookQueueOnClock {
  let simulated = Date.now();
  const queued: QueuedWebhookMessage[] = [];
  const responses: SQSBatchResponse[] = [];
  let unregister: () => void = () => undefined;
  const add = (messageId: string, body: string, delaySeconds: number) =>
    queued.push({ messageId, body: JSON.parse(body) as Record<string, unknown>, delaySeconds, dueAt: simulated + delaySeconds * 1000 });

  beforeAll(() => {
    setClock(() => new Date(simulated));
    // What the local queue delivers at once (no delay) lands here, received at the simulated now.
    unregister = registerLocalConsumer('webhooks', async (event) => {
      for (const record of event.Records) add(record.messageId, record.body, 0);
      return { batchItemFailures: [] };
    });
  });
  afterAll(() => {
    unregister();
    resetClock();
  });

  const collect = async () => {
    const taken = takeLocalMessages('webhooks');
    await localQueueIdle();
    for (const message of taken) add(message.messageId, message.body, message.delaySeconds);
    queued.sort((a, b) => a.dueAt - b.dueAt);
  };

  const next = async () => {
    await collect();
    const first = queued[0];
    if (!first) return [];
    simulated = Math.max(simulated, first.dueAt);
    const due = queued.filter((message) => message.dueAt <= simulated);
    queued.splice(0, due.length);
    for (let i = 0; i < due.length; i += 10) {
      const records = due.slice(i, i + 10).map((message) => toRecord('webhooks', { messageId: message.messageId, body: JSON.stringify(message.body), group: undefined, receiveCount: 1, sentAt: simulated }));
      responses.push(await handler({ Records: records }));
    }
    await collect();
    return due;
  };

  return {
    now: () => simulated,
    advance: (ms) => {
      simulated += ms;
    },
    queued: async () => {
      await collect();
      return [...queued];
    },
    next,
    runUntil: async (until = Number.POSITIVE_INFINITY) => {
      const handed: QueuedWebhookMessage[] = [];
      await collect();
      while (queued.length > 0 && (queued[0]?.dueAt ?? 0) <= until) handed.push(...(await next()));
      return handed;
    },
    responses,
  };
}
