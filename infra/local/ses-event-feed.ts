// Carries the local sink's SES events where the deployed EventBridge rules put them
// (infra/stack/event-wiring.ts): after SendEmail answered, one at a time in the order they were
// published, each event whole. Deliveries go to the delivery stream (local-firehose.ts), whose objects
// S3 announces on the ses-events queue; the other events go to that queue, each a message's body. The
// queue hands them to the ses-events function in batches, as deployed. An event the target refuses is tried again (EventBridge retries a target),
// then parked (the rule's dead-letter queue; here it is logged whole). Deployed, the retries wait
// seconds to minutes; locally they wait `retryDelaysMs`.
import { enqueueLocal } from '../../shared/queue/local-queue';
import { serializeBodies, type QueueName } from '../../shared/queue/queues';
import type { LocalFirehose } from './local-firehose';
import type { SesEventBridgeEvent } from './ses-simulator';

/** Hands one event on; a rejection means it did not arrive. */
export type SesEventTarget = (event: SesEventBridgeEvent) => Promise<unknown>;

/** The queue the deployed rule puts SES events on; its consumer is the ses-events function (shared/queue/queues.ts). */
export const sesEventsQueue: QueueName = 'ses-events';

/** The local ses-events queue: the event is in its journal (when it keeps one) once this resolves. */
export const toSesEventsQueue: SesEventTarget = async (event) => {
  enqueueLocal(sesEventsQueue, serializeBodies(sesEventsQueue, [event]));
};

/** The detail type the delivery stream's rule matches (the rest stay on the queue's rule). */
export const streamedDetailType = 'Email Delivered';

/** The deployed rules' split: deliveries to the stream (kept once this resolves), every other event to the queue. */
export function toSesEventTargets(stream: Pick<LocalFirehose, 'put'>): SesEventTarget {
  return async (event) => {
    if (event['detail-type'] === streamedDetailType) stream.put([JSON.stringify(event)]);
    else await toSesEventsQueue(event);
  };
}

export interface SesEventFeedOptions {
  target: SesEventTarget;
  /** The wait before each retry; its length is the number of retries (Lambda's asynchronous invoke makes two). */
  retryDelaysMs?: readonly number[];
  /** Told of each event once it was applied or parked (the sink's journal marks it). */
  settled?: (event: SesEventBridgeEvent) => void;
  log?: (line: string) => void;
}

export interface SesEventFeed {
  /** Queue events behind those already queued. */
  publish(events: readonly SesEventBridgeEvent[]): void;
  /** Resolves once every event published so far was applied or parked. */
  idle(): Promise<void>;
  /** Events given up on after their retries (or at stop), as the dead-letter queue would hold them. */
  readonly parked: readonly SesEventBridgeEvent[];
  /** Takes no more events; those queued still get one attempt each, without waiting to retry. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms).unref());

export function startSesEventFeed(options: SesEventFeedOptions): SesEventFeed {
  const retryDelays = options.retryDelaysMs ?? [200, 1_000];
  const log = options.log ?? ((line: string) => console.error(line));
  const settled = options.settled ?? (() => undefined);
  const parked: SesEventBridgeEvent[] = [];
  let stopping = false;
  let wake: () => void = () => undefined;
  // Resolved by stop(): a retry waiting for its delay goes at once.
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  // One chain: each event starts once the one before it is settled, as published.
  let tail: Promise<void> = Promise.resolve();

  const deliver = async (event: SesEventBridgeEvent): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await options.target(event);
        settled(event);
        return;
      } catch (error) {
        const delay = retryDelays[attempt];
        if (delay === undefined || stopping) {
          parked.push(event);
          log(`SES event parked after ${attempt + 1} attempt(s) (${error instanceof Error ? error.message : String(error)}): ${JSON.stringify(event)}`);
          settled(event);
          return;
        }
        await Promise.race([sleep(delay), stopped]);
      }
    }
  };

  return {
    publish(events) {
      if (stopping) {
        if (events.length > 0) log(`SES sink stopping: ${events.length} SES event(s) not published`);
        return;
      }
      for (const event of events) tail = tail.then(() => deliver(event));
    },
    idle: () => tail,
    parked,
    async stop() {
      stopping = true;
      wake();
      await tail;
    },
  };
}
