// The per-account request limit of the API: a fixed one-second window counted in the table, so the
// limit holds across every container and function the account's requests reach. A container leases
// its share of a window in chunks and spends them without a write, so a steady caller costs the table
// one or two writes per container and second, not one per request.
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

/** What this container holds of one account's current window. */
interface Lease {
  windowStart: number;
  /** Requests leased from the window's counter and not yet spent here. */
  left: number;
  /** Requests this container admitted in the window: the next window's first chunk. */
  admitted: number;
  /** The window's count as of this container's last lease (every container's leases). */
  counted: number;
  /** The size of the next chunk: doubled on each lease within a window, so a busy container writes rarely. */
  chunk: number;
  /** Set once a lease came back empty: the rest of the window is refused here without a write. */
  exhausted: boolean;
  /** A lease in flight, which concurrent requests of the account wait for rather than lease again. */
  pending?: Promise<void>;
}

const leases = new Map<number, Lease>();
const maxRemembered = 10_000;

/** Forget every lease and used-up window (a fresh container; tests that change the limit or the clock). */
export function forgetExhaustedWindows(): void {
  leases.clear();
}

function leaseOf(accountId: number, windowStart: number): Lease {
  const held = leases.get(accountId);
  if (held?.windowStart === windowStart) return held;
  // A caller as busy as in the window just ended leases that much at once; anyone else starts at one.
  const chunk = held?.windowStart === windowStart - 1 ? Math.max(1, held.admitted) : 1;
  if (!held && leases.size >= maxRemembered) {
    for (const [account, lease] of leases) if (lease.windowStart < windowStart - 1) leases.delete(account);
    if (leases.size >= maxRemembered) leases.clear();
  }
  const fresh: Lease = { windowStart, left: 0, admitted: 0, counted: 0, chunk, exhausted: false };
  leases.set(accountId, fresh);
  return fresh;
}

/**
 * Take `lease.chunk` requests from the window's counter (one UpdateItem ADD). Of what the counter had
 * left below the limit, this container gets up to its chunk; leases past the limit get nothing, so the
 * window never admits more than the limit across all containers. What a container leased and did not
 * spend when its second ends is lost to the account: at most its last chunk, and only when its own
 * traffic fell, since a container short of requests leases no more.
 */
async function renew(accountId: number, lease: Lease, limit: number): Promise<void> {
  const chunk = Math.min(lease.chunk, limit);
  const counted = await countRequest(accountRateKey(accountId, lease.windowStart), lease.windowStart + counterLifetimeSeconds, chunk);
  const granted = Math.max(0, Math.min(chunk, limit - (counted - chunk)));
  lease.counted = Math.max(lease.counted, counted);
  lease.left += granted;
  lease.chunk = chunk * 2;
  if (granted === 0) lease.exhausted = true;
}

/** Admit one authenticated request of an account, or refuse it once its window is used up everywhere; undefined when the limit is off. */
export async function takeAccountRequest(accountId: number): Promise<RateLimitState | undefined> {
  const limit = config().accountRateLimit;
  if (limit === undefined) return undefined;
  const windowStart = Math.floor(currentTime().getTime() / 1000);
  // The next window opens within the second; Retry-After counts whole seconds, so it is always 1.
  const refused: RateLimitState = { limit, remaining: 0, retryAfterSeconds: 1 };
  const lease = leaseOf(accountId, windowStart);
  for (;;) {
    if (lease.left > 0) {
      lease.left -= 1;
      lease.admitted += 1;
      return { limit, remaining: Math.max(0, limit - lease.counted) + lease.left };
    }
    if (lease.exhausted) return refused;
    lease.pending ??= renew(accountId, lease, limit).finally(() => {
      lease.pending = undefined;
    });
    await lease.pending;
  }
}

/** The `X-RateLimit-*` headers every authenticated answer carries. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'x-ratelimit-limit': String(state.limit), 'x-ratelimit-remaining': String(state.remaining) };
}
