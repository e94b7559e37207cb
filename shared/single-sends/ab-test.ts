// The pure rules of a single send's A/B subject test: its settings as stored on the send, how large its
// test share is (or why there is none), which subject each test recipient gets, and which subject wins.
import type { Item } from '../table/records';

export const abWinnerMetrics = ['opens', 'clicks'] as const;
export type AbWinnerMetric = (typeof abWinnerMetrics)[number];

/** The bounds and defaults of the settings (the create and update fields). */
export const abLimits = {
  subjects: { min: 2, max: 5 },
  percent: { min: 10, max: 50, default: 20 },
  waitMinutes: { min: 1, max: 1440, default: 240 },
  defaultMetric: 'opens' as AbWinnerMetric,
  /** Fewer recipients per subject than this tell nothing: the test is skipped. */
  minPerSubject: 10,
};

/** What a send stores (its `ab_test` attribute) when it tests subjects. */
export interface AbSettings {
  subjects: string[];
  percent: number;
  metric: AbWinnerMetric;
  wait_minutes: number;
}

/** The record's attribute holding the settings; absent on a send without a test. */
export const abSettingsAttribute = 'ab_test';

/** The settings a stored send holds, when it has well-formed ones. */
export function abSettingsOf(item: Item | undefined): AbSettings | undefined {
  const stored = item?.[abSettingsAttribute] as Partial<AbSettings> | undefined;
  if (typeof stored !== 'object' || stored === null || !Array.isArray(stored.subjects) || stored.subjects.length < abLimits.subjects.min) return undefined;
  return {
    subjects: stored.subjects.map(String),
    percent: Number(stored.percent ?? abLimits.percent.default),
    metric: stored.metric === 'clicks' ? 'clicks' : 'opens',
    wait_minutes: Number(stored.wait_minutes ?? abLimits.waitMinutes.default),
  };
}

/**
 * Where a send's test stands, on its dispatch item: `counting` its audience, `testing` (the test
 * share being fanned out), `waiting` (all of it fanned out: its mails settle, then the wait runs),
 * `winner_sent` (the winner decided, the rest of the audience gets it) or `skipped` (too small).
 */
export type AbPhase = 'counting' | 'testing' | 'waiting' | 'winner_sent' | 'skipped';

export type AbPlan = { kind: 'test'; testSize: number; perSubject: number } | { kind: 'skip'; reason: string };

/**
 * The test share of an audience of `audience` recipients: `percent` of it, rounded down to a whole
 * number per subject so the subjects get equal parts; skipped when a part would be under 10.
 */
export function abPlan(audience: number, settings: Pick<AbSettings, 'subjects' | 'percent'>): AbPlan {
  const subjects = settings.subjects.length;
  const perSubject = Math.floor(Math.floor((audience * settings.percent) / 100) / subjects);
  if (perSubject >= abLimits.minPerSubject) return { kind: 'test', testSize: perSubject * subjects, perSubject };
  const needed = Math.ceil((abLimits.minPerSubject * subjects * 100) / settings.percent);
  return {
    kind: 'skip',
    reason:
      `The audience of ${audience} recipients is too small for a test of ${subjects} subjects: ${settings.percent}% of it gives ${perSubject} ` +
      `recipients per subject, and a test needs at least ${abLimits.minPerSubject} per subject (an audience of ${needed} or more). ` +
      'Everyone was sent the first subject.',
  };
}

/** The subject of the `position`-th recipient of the test share (0-based): the subjects take turns. */
export function abVariantOf(position: number, subjects: number): number {
  return position % subjects;
}

/** One subject's part of the test: recipients mailed it, and the people among them who opened (a click counts as an open) or clicked. */
export interface AbVariantCounts {
  recipients: number;
  unique_opens: number;
  unique_clicks: number;
}

/**
 * The winner: the highest share of people who opened (or clicked) per recipient mailed; on a tie the
 * lower index. Compared as exact fractions; a subject mailed to nobody has a rate of 0.
 */
export function abWinner(variants: readonly AbVariantCounts[], metric: AbWinnerMetric): number {
  const engaged = (variant: AbVariantCounts) => (metric === 'opens' ? variant.unique_opens : variant.unique_clicks);
  let best = 0;
  variants.forEach((variant, index) => {
    const leader = variants[best] as AbVariantCounts;
    if (variant.recipients === 0) return;
    // a/b > c/d as a*d > c*b, both denominators positive (a leader mailed to nobody loses to any rate above 0).
    const beats = leader.recipients === 0 ? engaged(variant) > 0 : engaged(variant) * leader.recipients > engaged(leader) * variant.recipients;
    if (beats) best = index;
  });
  return best;
}

/** A counter of one subject's part of the test, beside the send's own on its counter shards. */
export type AbCounter = `ab_${'recipients' | 'opens' | 'clicks'}_${number}`;

/** The attributes of the send's counter shards that count one subject's part of the test. */
export function abCounterNames(index: number): Record<keyof AbVariantCounts, AbCounter> {
  return { recipients: `ab_recipients_${index}`, unique_opens: `ab_opens_${index}`, unique_clicks: `ab_clicks_${index}` };
}

/** Each subject's counts, summed over the send's counter shards. */
export function abVariantCountsOf(shards: readonly Item[], subjects: number): AbVariantCounts[] {
  return Array.from({ length: subjects }, (_, index) => {
    const names = abCounterNames(index);
    const sum = (name: string) => shards.reduce((total, shard) => total + Number(shard[name] ?? 0), 0);
    return { recipients: sum(names.recipients), unique_opens: sum(names.unique_opens), unique_clicks: sum(names.unique_clicks) };
  });
}
