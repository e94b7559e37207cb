// A token bucket that holds one container's sends to a rate, and makes every sender in the
// container back off together when SES says it is throttling.

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resume) => setTimeout(resume, ms)),
};

export interface TokenBucket {
  /** Wait until one send may start. */
  take(): Promise<void>;
  /**
   * Wait until one send may start, unless `keepGoing` says to stop: it is asked when the caller's
   * turn comes and again when the wait ends. True: the send may start now. False: stop; the caller
   * used no turn, so the one queued behind it may start as soon as the rate allows.
   */
  acquire(keepGoing?: () => boolean): Promise<boolean>;
  /** Hold every taker back for `ms` (SES answered "too many requests"). */
  pause(ms: number): void;
}

/**
 * At most `ratePerSecond` takes per second on average, and at most `burst` at once after a quiet
 * spell (the generic cell rate algorithm: one "theoretical arrival time" instead of a timer). Takers
 * are served one after another in the order they ask, and a taker that starts late (a slow timer)
 * is charged from when it really started, so late starts never bunch up the ones after them.
 */
export function tokenBucket(ratePerSecond: number, burst = Math.max(1, Math.floor(ratePerSecond)), clock: Clock = realClock): TokenBucket {
  if (!(ratePerSecond > 0)) throw new Error(`A send rate must be positive, got ${ratePerSecond}`);
  if (!(burst >= 1)) throw new Error(`A burst must be at least 1, got ${burst}`);
  const interval = 1000 / ratePerSecond;
  const tolerance = (burst - 1) * interval;
  let arrival = clock.now();
  let pausedUntil = 0;
  let turn: Promise<unknown> = Promise.resolve();
  const acquireInTurn = async (keepGoing: () => boolean): Promise<boolean> => {
    if (!keepGoing()) return false;
    const now = clock.now();
    arrival = Math.max(arrival, now);
    const startAt = Math.max(arrival - tolerance, pausedUntil);
    // Timers cannot wait less than a millisecond; a shorter wait is not worth one.
    if (startAt - now >= 1) {
      await clock.sleep(startAt - now);
      // The wait may have used up the caller's time: then the turn is not taken.
      if (!keepGoing()) return false;
    }
    arrival = Math.max(arrival, clock.now()) + interval;
    return true;
  };
  /** Callers are served one after another, in the order they ask. */
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const mine = turn.then(work);
    // A caller whose turn failed (a clock that throws) never blocks the callers after it.
    turn = mine.catch(() => undefined);
    return mine;
  };
  const always = () => true;
  return {
    take() {
      return inTurn(async () => {
        await acquireInTurn(always);
      });
    },
    acquire(keepGoing = always) {
      return inTurn(() => acquireInTurn(keepGoing));
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms);
    },
  };
}

/** Exponential backoff with jitter: attempt 1 waits about `baseMs`, doubling up to `maxMs`. */
export function backoffDelay(attempt: number, baseMs = 200, maxMs = 5_000, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // Half fixed, half random, so containers throttled together do not retry together.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
