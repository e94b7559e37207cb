// How much of the account's Lambda concurrency and API Gateway's request rate the stage plans for: the
// cap on each queue's consumers, the stage throttle and the reserved concurrency sized from the load
// the service must carry (docs/operations.md: Concurrency and throttling, with the arithmetic).
import type { QueueName } from '../../shared/queue/queues';

/** The queues whose consumers' cap follows the stage's settings rather than a fixed number. */
type SizedQueue = 'deliveries' | 'ses-events';

/**
 * Consumers of each queue at most (the SQS event source's maximum concurrency), besides the
 * deliverers, whose cap is the `deliveryConcurrency` setting (it keeps them under the SES rate), and
 * ses-events, sized from the SES rate (sesEventsConsumersFor).
 * Without a cap a queue's trigger scales to the account's whole concurrency, shared with the API.
 */
export const queueConsumerCaps: Readonly<Record<Exclude<QueueName, SizedQueue>, number>> = {
  // CPU and table writes; five imports at a time leave the table's write capacity to the API.
  imports: 5,
  // Segment rebuilds, enrolments at going live, purges: each pages through a partition.
  jobs: 5,
  // Waits on customers' receivers (5 s each at worst): 25 containers carry about 250 events a second
  // to receivers answering in 100 ms, and a slow receiver backs up its queue, not the account.
  webhooks: 25,
};

/** The maximum concurrency of `queue`'s event source, given the stage's caps of the sized queues. */
export function queueConsumerCap(queue: QueueName, sized: Readonly<Record<SizedQueue, number>>): number {
  return queue === 'deliveries' || queue === 'ses-events' ? sized[queue] : queueConsumerCaps[queue];
}

// The load model the defaults are sized from; each figure is checked against the dashboard once deployed.
/** Accounts the stage lets use their whole request limit at the same time. */
export const accountsAtTheirLimit = 4;
/**
 * Public-page requests per mail while a send goes out: the open pixel (mail privacy proxies fetch it
 * on delivery), link scanners following the links, a few readers at once.
 */
export const publicRequestsPerMail = 3;
/** An HTTP function's time per request, planned: twice the local median of a list or create (docs/benchmarks.md), about its p99. */
export const httpSecondsPerRequest = 0.05;
/** SES events per mail (delivery, then some opens, clicks, bounces and complaints). */
export const sesEventsPerMail = 2;
/**
 * ses-events' time per event within a batch, planned: a batch claims its deliveries' markers side by
 * side and counts each send's in one write, so a delivery costs a few milliseconds of its batch
 * (docs/benchmarks.md: Cost per million mails); bounces and clicks, a few writes each, take longer.
 */
export const sesEventSeconds = 0.02;
/** The fewest ses-events containers: room for a burst of events (a large send's first minutes, clicks). */
export const minSesEventsConsumers = 5;

/** Lambda's smallest maximum concurrency of an SQS event source. */
export const minEventSourceConcurrency = 2;

/** AWS keeps this much of an account's concurrency unreserved: a reservation that leaves less is refused. */
export const minimumUnreservedConcurrency = 100;

/**
 * The stage throttle the service needs: a few accounts at their request limit and the public pages
 * of mail going out at the SES rate, rounded up to tens. The burst is one second of it.
 */
export function stageThrottleFor(accountRateLimit: number, sesMaxSendRate: number): { rateLimit: number; burstLimit: number } {
  const rateLimit = Math.ceil((accountsAtTheirLimit * accountRateLimit + publicRequestsPerMail * sesMaxSendRate) / 10) * 10;
  return { rateLimit, burstLimit: rateLimit };
}

/**
 * Reserved concurrency of each HTTP function: enough for one family to carry the whole stage rate
 * (a reservation is also its function's ceiling, and API Gateway answers a throttled function with 500).
 */
export function httpReservationFor(stageRateLimit: number): number {
  return Math.ceil(stageRateLimit * httpSecondsPerRequest);
}

/**
 * Reserved concurrency of ses-events: twice the containers the events of mail going out at the SES
 * rate keep busy, at least minSesEventsConsumers. Its queue's event source is the only thing that
 * invokes it, capped at the same number (sesEventsConsumersFor), so the reservation is what it can
 * use: no other function can take those containers, and it takes no more.
 */
export function sesEventsReservationFor(sesMaxSendRate: number): number {
  return Math.max(minSesEventsConsumers, Math.ceil(2 * sesEventsPerMail * sesMaxSendRate * sesEventSeconds));
}

/**
 * The maximum concurrency of the ses-events queue's event source: its reservation when it has one
 * (the reservation is its ceiling: a higher cap would only have the poller's invocations throttled,
 * each a receive toward the dead-letter queue), else what the SES rate needs.
 */
export function sesEventsConsumersFor(reservation: number, sesMaxSendRate: number): number {
  return Math.max(minEventSourceConcurrency, reservation > 0 ? reservation : sesEventsReservationFor(sesMaxSendRate));
}

/** Reserved concurrency of the dispatcher: sends fanning out at once (more wait in Lambda's retry queue). */
export const defaultDispatchReservation = 10;

/** The automation step runner's: one run at a time, its share of the SES rate one container's (not a setting). */
export const stepRunnerReservation = 1;
