// The per-account request limit of the API: a fixed one-second window counted in the table, so the
// limit holds across every container and function the account's requests reach.
import { config } from '../config';
import { currentTime } from '../time';
import { accountRateKey } from './keys';
import { countRequest } from './repository';

export interface RateLimitState {
  limit: number;
  /** Requests left in the current window (0 once it is used up). */
  remaining: number;
  /** Set when this request is refused: whole seconds until the next window opens. */
  retryAfterSeconds?: number;
}

// A counter outlives its second by a minute, then TTL removes it (TTL deletes within days, and a
// window's key is never written again once its second has passed, so a late delete changes nothing).
const counterLifetimeSeconds = 60;

/**
 * Windows this container has already seen used up, by account: the rest of such a window is refused
 * here without a write, so an account far past its limit costs each container one write per second,
 * and a flood cannot turn into a flood of writes on one item.
 */
const exhausted = new Map<number, number>();
const maxRemembered = 10_000;

function remember(accountId: number, windowStart: number): void {
  if (exhausted.size >= maxRemembered) {
    for (const [account, window] of exhausted) if (window < windowStart) exhausted.delete(account);
    if (exhausted.size >= maxRemembered) exhausted.clear();
  }
  exhausted.set(accountId, windowStart);
}

/** Forget the windows this container saw used up (tests that change the limit or the clock). */
export function forgetExhaustedWindows(): void {
  exhausted.clear();
}

/**
 * Count one authenticated request of an account: one UpdateItem (ADD) on the window's counter. A
 * request past the limit is counted too, so the answer reports the window as used up everywhere.
 */
export async function takeAccountRequest(accountId: number): Promise<RateLimitState> {
  const limit = config().accountRateLimit;
  const windowStart = Math.floor(currentTime().getTime() / 1000);
  // The next window opens within the second; Retry-After counts whole seconds, so it is always 1.
  const refused: RateLimitState = { limit, remaining: 0, retryAfterSeconds: 1 };
  if (exhausted.get(accountId) === windowStart) return refused;
  const count = await countRequest(accountRateKey(accountId, windowStart), windowStart + counterLifetimeSeconds);
  if (count <= limit) return { limit, remaining: limit - count };
  remember(accountId, windowStart);
  return refused;
}

/** The `X-RateLimit-*` headers every authenticated answer carries. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'x-ratelimit-limit': String(state.limit), 'x-ratelimit-remaining': String(state.remaining) };
}
