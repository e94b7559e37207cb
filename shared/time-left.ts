// "Is there time left": the one answer every long-running consumer (deliveries, imports, background
// jobs, the dispatcher, the step runner, the identity refresh) asks before its next step, so each stops
// between steps and hands over to a fresh message or run before Lambda's time limit.
import type { Context } from 'aws-lambda';

/** Milliseconds the invocation has left; undefined outside Lambda (tests, scripts): never short of time. */
export type RemainingMs = (() => number) | undefined;

/** The Lambda context's clock, when there is one. */
export function remainingOf(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined): RemainingMs {
  return context?.getRemainingTimeInMillis?.bind(context);
}

/** Whether `ms` more, and `reserveMs` kept in hand after them, fit in what is left. */
export function fitsInTime(remaining: RemainingMs, reserveMs: number): (ms: number) => boolean {
  return (ms) => remaining === undefined || remaining() > ms + reserveMs;
}

export interface TimeLeftOptions {
  /** Time always kept in hand for what follows the last step (settling, re-queueing, logging). */
  reserveMs: number;
  /** Also keep this many times the longest step seen so far: a slow step predicts the next one. */
  longestStepTimes?: number;
}

/**
 * A check that says whether another step fits. Each call ends a step (its length is the time since
 * the previous call, or since the check was made).
 */
export function timeLeft(remaining: RemainingMs, options: TimeLeftOptions): () => boolean {
  const fits = fitsInTime(remaining, options.reserveMs);
  const times = options.longestStepTimes ?? 0;
  let longest = 0;
  let stepStarted = Date.now();
  return () => {
    const now = Date.now();
    longest = Math.max(longest, now - stepStarted);
    stepStarted = now;
    return fits(times * longest);
  };
}
