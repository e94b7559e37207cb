// The `ab_test` block of `single-send/details`: a send's A/B subject test as it stands, from its
// settings, its dispatch progress and the per-subject counters on its counter shards.
import { abVariantCountsOf, type AbSettings, type AbWinnerMetric } from '../single-sends/ab-test';
import type { DispatchState } from '../single-sends/dispatch-state';
import type { Item } from '../table/records';

export type AbTestStatus = 'testing' | 'waiting' | 'winner_sent' | 'skipped';

export interface AbTestReport {
  /** Null until the send starts. */
  status: AbTestStatus | null;
  metric: AbWinnerMetric;
  percent: number;
  wait_minutes: number;
  /** Each subject's part of the test share: recipients mailed it, and the people among them who opened (a click counts as an open) or clicked. */
  variants: { subject: string; recipients: number; unique_opens: number; unique_clicks: number }[];
  winner_index: number | null;
  /** ISO 8601: when the winner was chosen, or the test skipped. */
  decided_at: string | null;
  /** Only when the test was skipped: why. */
  skipped_reason?: string;
}

function statusOf(progress: DispatchState | undefined): AbTestStatus | null {
  const ab = progress?.ab;
  if (!progress || !ab) return null;
  if (ab.phase === 'counting' || ab.phase === 'testing') return 'testing';
  // Fanned out: still testing until its mails have settled, then waiting for the winner's time.
  if (ab.phase === 'waiting') return progress.settledBatches < progress.fannedBatches ? 'testing' : 'waiting';
  return ab.phase;
}

export function abTestReport(settings: AbSettings, shards: readonly Item[], progress: DispatchState | undefined): AbTestReport {
  const counts = abVariantCountsOf(shards, settings.subjects.length);
  const ab = progress?.ab;
  const status = statusOf(progress);
  return {
    status,
    metric: settings.metric,
    percent: settings.percent,
    wait_minutes: settings.wait_minutes,
    variants: settings.subjects.map((subject, index) => ({ subject, ...(counts[index] as (typeof counts)[number]) })),
    winner_index: status === 'winner_sent' ? (ab?.winner ?? null) : null,
    decided_at: ab?.decidedAt ?? null,
    ...(status === 'skipped' ? { skipped_reason: ab?.skippedReason ?? '' } : {}),
  };
}
