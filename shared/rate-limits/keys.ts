// Keys of request-limit counters: one item per caller per fixed window, gone with its TTL soon after.
import { type Key, entityPartition } from '../table/keys';

/** The counter of one account's authenticated requests in the window starting at `windowStart` (epoch seconds). */
export function accountRateKey(accountId: number, windowStart: number): Key {
  return { pk: entityPartition(accountId, `rate#${windowStart}`), sk: 'RATE' };
}

/**
 * The counter of one recipient link's public requests (`link` names the link without its signature:
 * the send and the address, hashed) in one window of one kind (`pages`, `open`).
 */
export function linkRateKey(accountId: number, link: string, kind: string, windowStart: number): Key {
  return { pk: entityPartition(accountId, `link-rate#${link}#${kind}#${windowStart}`), sk: 'RATE' };
}

/**
 * One slot of the SES control-plane pacer (shared/rate-limits/ses-control.ts), numbered from the epoch:
 * the stage's one call in that slot, whichever container makes it. Gone with its TTL.
 */
export function sesControlSlotKey(slot: number): Key {
  return { pk: `SES-CONTROL#${slot}`, sk: 'RATE' };
}

/** Whether a key is a request counter's (bookkeeping every request writes, refused or not). */
export function isRequestCounterKey(key: { pk?: unknown; sk?: unknown } | undefined): boolean {
  return key?.sk === 'RATE' && typeof key.pk === 'string' && /^A#\d+#(rate|link-rate)#/.test(key.pk);
}
