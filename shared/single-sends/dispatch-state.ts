// The dispatch progress of a single send, as read from its dispatch item (progress.ts writes it).
import type { AbPhase } from './ab-test';

/** Where a send's A/B test stands (ab-test.ts), on its dispatch item. */
export interface AbProgress {
  phase: AbPhase;
  /** Recipients counted so far (the whole audience once counting is over). */
  counted: number;
  /** The test share's size, once counted (0 when skipped). */
  testSize: number;
  /** ISO 8601: when the winner is due, once the test's mails have all settled. */
  decideAt: string | null;
  winner: number | null;
  /** ISO 8601: when the winner was chosen, or the test skipped. */
  decidedAt: string | null;
  skippedReason: string | null;
}

/** Where the dispatcher stands: which audience entry, and the last key it fanned out within it. */
export interface DispatchCursor {
  /** Index into the send's ordered audience entries. */
  source: number;
  /** The last contact id (contact types) or lower-cased address (segments) already fanned out; null at the start. */
  after: number | string | null;
}

export interface DispatchState {
  /** Pages fanned out so far; also the version the next cursor write is conditioned on. */
  page: number;
  cursor: DispatchCursor;
  done: boolean;
  fannedBatches: number;
  fannedRecipients: number;
  settledBatches: number;
  /** Recipients settled by outcome: mailed, skipped (suppressed, or already mailed through another entry), failed for good. */
  sent: number;
  skipped: number;
  failed: number;
  /** Recipients whose outcome is unknown: a call to SES, or the run making it, ended without an answer. Never mailed again. */
  uncertain: number;
  completedAt: string | null;
  /** ISO 8601: the last page fanned out or batch settled (the start, before either). */
  progressAt: string;
  /** Times the watchdog resumed it since it last progressed. */
  stallResumes: number;
  /** Only on a send with an A/B subject test. */
  ab?: AbProgress;
  /**
   * The dispatch began after the delivery ledger was kept by address: no ledger entry of this send is
   * stored in the layout before, so its deliverers never look there.
   */
  ledgerByAddress: boolean;
  /**
   * The account's suppression state was complete when the dispatch began: its deliverers read one
   * state item per recipient. A send dispatched before (the backfill still running) reads the lists.
   */
  suppressionState: boolean;
}
