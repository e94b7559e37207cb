// What can be sent: a single send, or one step of an automation, as the delivery engine, statistics
// and reputation see it. Each kind implements this port in its own folder: its counters
// (single-sends/sendable.ts, automations/sendable.ts) and the reputation its mails count toward
// (reputation-subject.ts beside them), apart so a bundle that only counts carries no pause code. Code
// that holds only a SendRef gets them from statistics/sendable-of.ts (counters) or feedback/reputation.ts
// (reputation), the only places that tell the kinds apart.
import type { SendRef } from './send-ref';

/**
 * The counters every sendable keeps, in one vocabulary; each kind stores them under its own names.
 * Opens and clicks are people's; a machine's open or a bot's click counts in `machine_opens` or
 * `bot_clicks` alone (statistics/engagement-rules.ts).
 */
export type SendCounter =
  | 'triggered'
  | 'delivered'
  | 'bounces'
  | 'complaints'
  | 'opens'
  | 'unique_opens'
  | 'machine_opens'
  | 'clicks'
  | 'unique_clicks'
  | 'bot_clicks'
  | 'unsubscribes';

export type SendCounts = Partial<Record<SendCounter, number>>;

/** The counters a rate is judged on (a complaint comes after a delivery: it is among `delivered`). */
export interface ReputationCounts {
  delivered: number;
  bounces: number;
  complaints: number;
  /**
   * Mails handed to SES. Deliveries are counted up to a delivery stream's buffer later than bounces
   * (docs/architecture.md), so a rate is never judged on fewer mails than this. Absent in a base
   * stored before it was kept: that base is then judged on the reported mails alone.
   */
  triggered?: number;
}

/** What the pause check reads: whether the subject may be paused now, its counters, and those it last resumed at. */
export interface ReputationView {
  /** Running (a single send) or live (an automation), and not paused already. */
  pausable: boolean;
  counts: ReputationCounts;
  base: ReputationCounts;
  /** Recipients queued so far, for the verdict that need not wait for a minimum; undefined where it does not apply. */
  queued?: () => Promise<number>;
}

/**
 * Whose reputation a sendable's mails count toward: the single send itself, or the automation as a
 * whole (its totals over every step). Paused by one conditional write, so exactly one caller pauses it.
 */
export interface ReputationSubject {
  kind: 'single-send' | 'automation';
  utr: string;
  view(): Promise<ReputationView | undefined>;
  /** Pause it, saying why; true for the one caller that paused it. */
  pause(reason: string): Promise<boolean>;
  /** What the caller that paused it does next besides the notice (a paused send leaves the stall watch). */
  afterPause(): Promise<void>;
  /** Its name for the notice (its utr when it cannot be read). */
  name(): Promise<string>;
}

/**
 * What a person's event adds to one subject's part of an A/B test, for a recipient of its test share:
 * their first open or click (`unique_opens`: a click counts as an open), their first click.
 */
export interface VariantCounts {
  variant: number;
  unique_opens?: number;
  unique_clicks?: number;
}

export interface Sendable {
  ref: SendRef;
  /** Add to its counters atomically, and to a test subject's with them (kinds that test none ignore it); false when it is gone (nothing is recreated). */
  addCounts(counts: SendCounts, variant?: VariantCounts): Promise<boolean>;
  /** Count a click on one link target, where the kind keeps per-link counts (single sends do). */
  addLinkClick?(target: string, firstOnLink: boolean): Promise<void>;
}

/** Counts as stored (an absent or malformed value counts 0). */
export function reputationCountsOf(value: unknown): ReputationCounts {
  const stored = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return {
    delivered: Number(stored.delivered ?? 0),
    bounces: Number(stored.bounces ?? 0),
    complaints: Number(stored.complaints ?? 0),
    ...(stored.triggered === undefined ? {} : { triggered: Number(stored.triggered) }),
  };
}
