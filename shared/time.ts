// Timestamps in the spec's forms, from one injectable clock.

let now: () => Date = () => new Date();

/** The current time; tests and the automation engine may replace the clock. */
export function currentTime(): Date {
  return now();
}

export function setClock(clock: () => Date): void {
  now = clock;
}

export function resetClock(): void {
  now = () => new Date();
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: ISO 8601 UTC with microseconds, as the spec shows. */
export function isoTimestamp(at: Date = currentTime()): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `YYYY-MM-DD HH:MM:SS` (UTC): the form of `sent_at`, `live_at` and `send_at`. */
export function sqlTimestamp(at: Date = currentTime()): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}
