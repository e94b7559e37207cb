// The single-send record: its shape as the spec shows it, its status values, and how a stored item
// becomes that shape (shared by the API repository and the sending pipeline's progress module).
import { withoutKeys, type Item } from '../table/records';
import type { AbSettings } from './ab-test';

/**
 * The spec's status values, and one of ours: 4, a send that stopped before reaching every recipient
 * and will not go on (its `failure` says why). Transitions are documented in docs/api-notes.md.
 */
export const singleSendStatus = { initiate: 0, ready: 1, running: 2, completed: 3, failed: 4 } as const;

export type SingleSendStatus = (typeof singleSendStatus)[keyof typeof singleSendStatus];

/** The two kinds of audience a send names, by the prefix clients send (`contacts_3`, `segments_7`). */
export type RecipientTable = 'contacts_' | 'segments_';

/** One audience entry as stored and shown: `{id: '3', table: 'contacts_'}`. */
export interface RecipientEntry {
  id: string;
  table: RecipientTable;
}

/** What create and update set: the client's fields plus the sender's details copied at that moment. */
export interface SingleSendContent {
  template_id: number;
  sender_id: number;
  unsubscribe_group_id: number;
  recipient_id: RecipientEntry[];
  exclude_specific_recipient_id: RecipientEntry[];
  single_send_name: string;
  subject: string;
  preheader: string;
  from_sender: string;
  reply_to: string;
  sender_name: string | null;
  sender_address: string | null;
  schedule_type: 0 | 1;
  /** `YYYY-MM-DD`, or `0000-00-00` when immediate. */
  schedule_date: string;
  /** `HH:MM:SS` (in `schedule_timezone`, UTC when none), or `00:00:00` when immediate. */
  schedule_time: string;
  /** The IANA time zone the date and time are read in; absent: UTC (not in the spec, shown only when given). */
  schedule_timezone?: string;
  template_json: string | null;
  template_html: string | null;
  /**
   * Its A/B subject test, when it has one (stored as `ab_test`; not in the spec's record: the details
   * show it as their `ab_test` block, ab-test.ts).
   */
  ab_test?: AbSettings;
}

export interface SingleSendStatistics {
  triggered: number;
  delivered: number;
  unique_opens: number;
  total_opens: number;
  bounces: number;
  unsubscribes: number;
}

export const statisticNames: readonly (keyof SingleSendStatistics)[] = ['triggered', 'delivered', 'unique_opens', 'total_opens', 'bounces', 'unsubscribes'];

/** Counters kept beside the spec's record (its statistics answer shows them). */
export const statisticsOnlyCounters = ['clicks', 'unique_clicks', 'complaints', 'machine_opens', 'bot_clicks'] as const;

export type SingleSendCounter = keyof SingleSendStatistics | (typeof statisticsOnlyCounters)[number];

/** Every statistics counter of a send. */
export const singleSendCounterNames: readonly SingleSendCounter[] = [...statisticNames, ...statisticsOnlyCounters];

/** Who a resend mails: the original's recipients who have not opened it (a click counts as an open), or not clicked it. */
export const resendAudiences = ['non_openers', 'non_clickers'] as const;
export type ResendAudience = (typeof resendAudiences)[number];

/** A resend's original, and which of its recipients it mails (computed at the resend's own dispatch). */
export interface ResendOf {
  utr: string;
  audience: ResendAudience;
}

/** The stored attribute of a resend's original; absent on any other send. */
export const resendOfAttribute = 'resend_of';

/** Why a send is not progressing: `reason` for programs, `message` for people. */
export interface SendWaiting {
  /** `resuming` (stalled; the watchdog resumes it), `delivering` (all queued; deliveries unconfirmed), or a hold's own reason. */
  reason: string;
  message: string;
  /** ISO 8601: since when the send has not progressed (any progress after it ends the wait). */
  since: string;
  /** ISO 8601: when it is tried again; null when that is not known. */
  retry_at: string | null;
}

/** Why a send ended at status 4 (failed). */
export interface SendFailure {
  reason: string;
  message: string;
  /** ISO 8601: when it was given up. */
  at: string;
}

/** A single send exactly as the spec's table lists it, in its order. */
export interface SingleSend extends SingleSendContent, SingleSendStatistics {
  id: number;
  user_id: number;
  status: SingleSendStatus;
  utr: string;
  /** Always `{}`: open tokens are derived per recipient when mail is rendered, never stored (README). */
  unique_open_token: Record<string, string>;
  /** `YYYY-MM-DD HH:MM:SS` (UTC) when the send completed; null until then. */
  sent_at: string | null;
  created_at: string;
  updated_at: string;
  /** Only while the send is not progressing (not in the spec: absent otherwise). */
  waiting?: SendWaiting;
  /** Only at status 4 (not in the spec: absent otherwise). */
  failure?: SendFailure;
  /** Only while it is paused for its bounces or complaints: why (not in the spec: absent otherwise). */
  paused_reason?: string;
  /** Only on a resend (`single/send/resend`): its original and audience (not in the spec: absent otherwise). */
  resend_of?: ResendOf;
}

/** The `waiting.reason` of a running send paused for its reputation (shared/feedback/reputation.ts). */
export const reputationPauseReason = 'reputation';

/**
 * Not part of the record: when the send's scheduler job is due (ISO 8601), or absent for a draft.
 * The dispatcher compares it with the time it fires, so a job replaced by an update cannot send early.
 */
export const dispatchAtAttribute = 'dispatch_at';

/** The stored attributes behind `waiting` and `failure`. */
export const waitingAttribute = 'waiting';
export const failureAttribute = 'failure';

function entries(value: unknown): RecipientEntry[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry: { id: unknown; table: unknown }) => ({ id: String(entry.id), table: entry.table as RecipientTable }));
}

function nullableText(value: unknown): string | null {
  return value === undefined || value === null ? null : String(value);
}

/** The stored wait or failure, when the item has one. */
function waitingOf(value: unknown): SendWaiting | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  return { reason: String(stored.reason), message: String(stored.message), since: String(stored.since), retry_at: nullableText(stored.retry_at) };
}

function resendOfOf(value: unknown): ResendOf | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  const audience = resendAudiences.find((name) => name === stored.audience);
  return typeof stored.utr === 'string' && audience ? { utr: stored.utr, audience } : undefined;
}

function failureOf(value: unknown): SendFailure | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  return { reason: String(stored.reason), message: String(stored.message), at: String(stored.at) };
}

/** The record of a stored item, field by field so the output keeps the spec's order whatever the item holds. */
export function toSingleSend(item: Item): SingleSend {
  const record = withoutKeys<Record<string, unknown>>(item);
  const singleSend: SingleSend = {
    id: Number(record.id),
    user_id: Number(record.user_id),
    template_id: Number(record.template_id),
    sender_id: Number(record.sender_id),
    unsubscribe_group_id: Number(record.unsubscribe_group_id),
    recipient_id: entries(record.recipient_id),
    exclude_specific_recipient_id: entries(record.exclude_specific_recipient_id),
    single_send_name: String(record.single_send_name),
    subject: String(record.subject),
    preheader: String(record.preheader),
    from_sender: String(record.from_sender),
    reply_to: String(record.reply_to),
    sender_name: nullableText(record.sender_name),
    sender_address: nullableText(record.sender_address),
    schedule_type: record.schedule_type === 1 ? 1 : 0,
    schedule_date: String(record.schedule_date),
    schedule_time: String(record.schedule_time),
    ...(typeof record.schedule_timezone === 'string' ? { schedule_timezone: record.schedule_timezone } : {}),
    status: Number(record.status ?? singleSendStatus.initiate) as SingleSendStatus,
    utr: String(record.utr),
    template_json: nullableText(record.template_json),
    template_html: nullableText(record.template_html),
    triggered: Number(record.triggered ?? 0),
    delivered: Number(record.delivered ?? 0),
    unique_opens: Number(record.unique_opens ?? 0),
    total_opens: Number(record.total_opens ?? 0),
    bounces: Number(record.bounces ?? 0),
    unsubscribes: Number(record.unsubscribes ?? 0),
    unique_open_token: {},
    sent_at: nullableText(record.sent_at),
    created_at: String(record.created_at),
    updated_at: String(record.updated_at),
  };
  // Beyond the spec's fields, and only when they say something, so a plain send shows the spec's shape.
  const waiting = waitingOf(record[waitingAttribute]);
  const failure = failureOf(record[failureAttribute]);
  if (waiting) singleSend.waiting = waiting;
  if (failure) singleSend.failure = failure;
  if (waiting?.reason === reputationPauseReason && singleSend.status === singleSendStatus.running) singleSend.paused_reason = waiting.message;
  const resendOf = resendOfOf(record[resendOfAttribute]);
  if (resendOf) singleSend.resend_of = resendOf;
  return singleSend;
}

/** The scheduler job of one send: one per send, replaced on re-schedule (EventBridge names allow 64 characters). */
export function singleSendJobName(accountId: number, utr: string): string {
  return `single-send-${accountId}-${utr}`;
}
