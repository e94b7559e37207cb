// Holding a send: it waits, says why (`waiting` in its details), and its dispatch job is booked for
// when it should be tried again. The watchdog holds a stalled send while it resumes it; any use case
// that must make a send wait (something it needs is not ready yet) holds it the same way.
import { scheduleSendDispatch } from './dispatch-job';
import { currentTime } from '../time';
import { clearWaiting, setWaiting } from '../single-sends/waiting';

export interface Hold {
  /** Machine-readable, kebab-case: `resuming`, `delivering`, `segment-rebuilding`, ... */
  reason: string;
  /** One sentence for people. */
  message: string;
  /** When the send is tried again: its dispatch job fires then. Null: nothing is booked (something else will move it). */
  retryAt: Date | null;
  /** Since when it has not progressed; now when not given. */
  since?: Date;
}

/**
 * Hold a ready or running send: record why it waits and book its dispatch job (the send's one job name,
 * so deleting the send cancels it) for `retryAt`. False when the send is gone or no longer ready or running.
 */
export async function holdSend(accountId: number, utr: string, hold: Hold): Promise<boolean> {
  const held = await setWaiting(accountId, utr, {
    reason: hold.reason,
    message: hold.message,
    since: (hold.since ?? currentTime()).toISOString(),
    retry_at: hold.retryAt ? hold.retryAt.toISOString() : null,
  });
  if (!held) return false;
  if (hold.retryAt) {
    await scheduleSendDispatch(accountId, utr, hold.retryAt, { resume: true });
  }
  return true;
}

/** Release a held send's wait (its job, if any, stays booked); `since` names the one wait to clear. */
export async function clearHold(accountId: number, utr: string, since?: string): Promise<void> {
  await clearWaiting(accountId, utr, since);
}
