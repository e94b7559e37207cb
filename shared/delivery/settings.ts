// The sending pipeline's settings, read from the environment once per container, with a clear
// error naming the variable when one is malformed.
import { config, optionalEnv, positiveNumberEnv } from '../config';
import { maxReceiveCount } from '../queue/queues';

export interface SendingSettings {
  /**
   * Mails per second one container may hand to SES. Deployed, the stack caps the delivery
   * function's concurrency (the SQS event source's maximum concurrency), so containers x this rate
   * stays under the account's SES quota; the default is SES's starting quota of 14/s.
   */
  maxSendRate: number;
  /** The SES configuration set that carries delivery, bounce and complaint events back; none when unset. */
  configurationSetName: string | undefined;
  /** Receives of one queue message before it dead-letters (the queue's redrive maxReceiveCount). */
  maxReceives: number;
  /** Contacts (or segment recipients) read per dispatcher page. */
  dispatchPageSize: number;
  /** Recipients of one queue message sent at the same time. */
  deliveryConcurrency: number;
  /**
   * How long one delivery message is mailed before the recipients it has not reached continue in a
   * fresh message at the back of its account's queue (docs/architecture.md: Fair delivery): the
   * longest another account's new mail waits for a container. Longer turns mean fewer messages and
   * invocations at low rates, and a longer wait for the others.
   */
  deliveryTurnMs: number;
}

let cached: SendingSettings | undefined;

export function sendingSettings(): SendingSettings {
  if (cached) return cached;
  const local = config().runtime === 'local';
  cached = {
    // The sink has no quota; a high local rate still exercises the bucket.
    maxSendRate: positiveNumberEnv('SES_MAX_SEND_RATE', local ? 2000 : 14),
    configurationSetName: optionalEnv('SES_CONFIGURATION_SET'),
    maxReceives: positiveNumberEnv('DELIVERY_MAX_RECEIVES', maxReceiveCount, { integer: true }),
    dispatchPageSize: positiveNumberEnv('DISPATCH_PAGE_SIZE', 500, { integer: true }),
    deliveryConcurrency: positiveNumberEnv('DELIVERY_CONCURRENCY', local ? 16 : 8, { integer: true }),
    deliveryTurnMs: positiveNumberEnv('DELIVERY_TURN_MS', 2_000, { integer: true }),
  };
  return cached;
}

/** Forget the settings (tests change the environment). */
export function resetSendingSettings(): void {
  cached = undefined;
}
