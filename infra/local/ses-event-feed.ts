// Carries the local sink's SES events to the feedback function as EventBridge and Lambda would:
// after SendEmail answered, one at a time in the order they were published, and an event whose
// invocation throws is tried again (Lambda's asynchronous invoke: two retries, then the event is
// parked in the feedback dead-letter queue; here it is logged whole). Deployed, the retries wait a
// minute or two; locally they wait `retryDelaysMs`.
import { randomUUID } from 'node:crypto';
import { loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';
import type { SesEventBridgeEvent } from './ses-simulator';

/** Invokes the feedback function with one event; a rejection means the invocation failed. */
export type SesEventTarget = (event: SesEventBridgeEvent) => Promise<unknown>;

/** The function the deployed stack routes SES events to (infra/stack/service-functions.ts). */
export const sesEventsFunctionName = 'ses-events';

/** The ses-events function's module, loaded in this process as a warm Lambda keeps it. */
export const invokeSesEventsFunction: SesEventTarget = (event) => {
  const handler = loadFunctionHandler(sesEventsFunctionName) as (event: SesEventBridgeEvent, context: unknown) => Promise<unknown>;
  return handler(event, lambdaContext(sesEventsFunctionName, randomUUID()));
};

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
