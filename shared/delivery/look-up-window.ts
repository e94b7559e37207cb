// How many recipients a delivery run looks up at a time (deliver.ts): about half a second of mails at
// the pace it keeps, read ahead while the last window is mailed, never all up front (a run whose turn
// or time ends hands the rest on unread, and the fresh message that continues them reads them once).

/** The pace of the container's latest delivery run, in mails a second (0 before its first). */
let containerPace = 0;

/** A run's pace is counted over at least this long: its workers all start at once. */
const shortestRunMs = 500;

/** A run's own count is a poor guess of its pace before this much of it has passed. */
const ownPaceAfterMs = 1_000;

/** Keep the pace a finished run kept, as the guess for the container's next run's first second. */
export function recordRunPace(handedOut: number, elapsedMs: number): void {
  if (handedOut > 0) containerPace = (handedOut * 1000) / Math.max(shortestRunMs, elapsedMs);
}

/** Forget the container's pace (tests). */
export function resetContainerPace(): void {
  containerPace = 0;
}

/**
 * Mails a second a run keeps, from those handed out in `elapsedMs`: in its first second, at least
 * the pace of the container's latest run (the same sends, the same rate limiter; counted alone, a
 * fresh run's first windows were as small as its workers are many, six look-ups for a message of 100
 * recipients at 400 mails a second instead of two).
 */
export function runPace(handedOut: number, elapsedMs: number): number {
  const own = (handedOut * 1000) / Math.max(ownPaceAfterMs, elapsedMs);
  return elapsedMs < ownPaceAfterMs ? Math.max(own, containerPace) : own;
}

/**
 * The next window's size: the first, one recipient per worker, so the run starts after the smallest
 * look-up; then about half a second at the run's pace (at least one per worker).
 */
export function lookUpWindowSize(workers: number, first: boolean, pace: number): number {
  return first ? workers : Math.max(workers, Math.ceil(pace / 2));
}
