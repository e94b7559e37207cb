// The sending pipeline's settings, read from the environment once per container, with a clear
// error naming the variable when one is malformed.
import { config } from '../config';

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
}

function positiveNumber(name: string, fallback: number, integer: boolean): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  }
  return value;
}

let cached: SendingSettings | undefined;

export function sendingSettings(): SendingSettings {
  if (cached) return cached;
  const local = config().runtime === 'local';
  cached = {
    // The sink has no quota; a high local rate still exercises the bucket.
    maxSendRate: positiveNumber('SES_MAX_SEND_RATE', local ? 2000 : 14, false),
    configurationSetName: process.env.SES_CONFIGURATION_SET || undefined,
    maxReceives: positiveNumber('DELIVERY_MAX_RECEIVES', 3, true),
    dispatchPageSize: positiveNumber('DISPATCH_PAGE_SIZE', 500, true),
    deliveryConcurrency: positiveNumber('DELIVERY_CONCURRENCY', local ? 16 : 8, true),
  };
  return cached;
}

/** Forget the settings (tests change the environment). */
export function resetSendingSettings(): void {
  cached = undefined;
}
