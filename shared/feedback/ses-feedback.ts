// SES configuration-set events (EventBridge's shape) turned into statistics and suppressions:
// deliveries count as delivered, hard bounces count and suppress, complaints count and suppress, and
// clicks (when a deployment turns SES click tracking on) count as our click endpoint counts them, a
// bot's apart by the rules SES's event can tell (its User-Agent, its time after the send). The send
// comes back from the `send_ref` message tag set at send time; mail without it (system mail) is ignored.
// Deliveries are counted a batch at a time (ses-event-batch.ts); every other event here, one by one.
import type { EventBridgeEvent } from 'aws-lambda';
import { addBouncedAddress } from '../suppressions/bounces';
import { isClickLink, isTrackedTarget } from '../rendering/click-tracking';
import { checkReputation } from './reputation';
import { abVariantTag, decodeSendRef, markerLayoutTag, markersByAddress, sendRefTag, type SendRef } from '../ledger/send-ref';
import { botClickRule } from '../statistics/engagement-rules';
import { recordBotClick, recordClickOf, recordSendEvent } from '../statistics/event-counts';
import { onFirstEngagement } from '../audience/engagement-events';
import { emitWebhookEvent, type WebhookEventInput } from '../webhook-delivery/events';

/** The parts of an SES event record we read (an EventBridge event's detail). */
export interface SesEventRecord {
  eventType?: string;
  /** Older identity notifications name the type here instead. */
  notificationType?: string;
  /** `timestamp`: when the message was sent (ISO 8601). */
  mail?: { messageId?: string; timestamp?: string; destination?: string[]; tags?: Record<string, string[] | undefined> };
  delivery?: { recipients?: string[] };
  bounce?: { bounceType?: string; bounceSubType?: string; bouncedRecipients?: { emailAddress?: string }[] };
  complaint?: { complaintFeedbackType?: string; complainedRecipients?: { emailAddress?: string }[] };
  click?: { link?: string; timestamp?: string; userAgent?: string };
}

export type SesEventBridgeEvent = EventBridgeEvent<string, SesEventRecord>;

/** What one SES event means for us. */
export type Feedback =
  | {
      kind: 'delivered';
      ref: SendRef;
      recipients: string[];
      /** The mail went before its markers were kept by address: its delivery may have been counted in the layout before. */
      countedBefore?: true;
    }
  | { kind: 'hard-bounce'; ref: SendRef; recipients: string[]; detail: string | null }
  | { kind: 'complaint'; ref: SendRef; recipients: string[]; detail: string | null }
  /** `machine`: a bot's click (statistics/engagement-rules.ts); absent for a person's. `variant`: the A/B test subject of a test share's mail. */
  | { kind: 'click'; ref: SendRef; recipients: string[]; link: string; machine?: true; variant?: number }
  | { kind: 'ignored'; reason: string };

/** The SES event record an EventBridge event carries; throws for anything else. */
export function sesRecordOf(event: Partial<SesEventBridgeEvent>): SesEventRecord {
  if (event.source !== 'aws.ses' || typeof event.detail !== 'object' || event.detail === null) throw new Error(`Not an SES event: source '${String(event.source)}'`);
  return event.detail;
}

function addresses(list: { emailAddress?: string }[] | undefined): string[] {
  return (list ?? []).map((entry) => entry.emailAddress ?? '').filter((address) => address !== '');
}

/** Classify one SES event record. */
export function feedbackOf(record: SesEventRecord): Feedback {
  const type = record.eventType ?? record.notificationType ?? '';
  const tag = record.mail?.tags?.[sendRefTag]?.[0];
  if (!tag) return { kind: 'ignored', reason: `no ${sendRefTag} tag` };
  let ref: SendRef;
  try {
    ref = decodeSendRef(tag);
  } catch {
    return { kind: 'ignored', reason: `malformed ${sendRefTag} tag '${tag}'` };
  }
  switch (type) {
    case 'Delivery':
      return {
        kind: 'delivered',
        ref,
        recipients: record.delivery?.recipients ?? record.mail?.destination ?? [],
        ...(record.mail?.tags?.[markerLayoutTag]?.[0] === markersByAddress ? {} : { countedBefore: true as const }),
      };
    case 'Bounce':
      // Transient bounces (mailbox full, auto-replies) are SES's to retry, not a reason to suppress.
      if (record.bounce?.bounceType !== 'Permanent') return { kind: 'ignored', reason: `${record.bounce?.bounceType ?? 'unknown'} bounce` };
      return { kind: 'hard-bounce', ref, recipients: addresses(record.bounce.bouncedRecipients), detail: record.bounce.bounceSubType ?? null };
    case 'Complaint':
      return { kind: 'complaint', ref, recipients: addresses(record.complaint?.complainedRecipients), detail: record.complaint?.complaintFeedbackType ?? null };
    case 'Click': {
      const link = record.click?.link ?? '';
      // Our click links were counted by our endpoint when followed; our own pages are not clicks.
      if (isClickLink(link)) return { kind: 'ignored', reason: 'click on our click link' };
      if (!isTrackedTarget(link)) return { kind: 'ignored', reason: 'click on an untracked link' };
      const bot = botClickRule({ method: 'GET', userAgent: record.click?.userAgent, hiddenLink: false, sinceSent: sinceSent(record) }) !== undefined;
      const variant = Number(record.mail?.tags?.[abVariantTag]?.[0] ?? Number.NaN);
      return {
        kind: 'click',
        ref,
        recipients: record.mail?.destination ?? [],
        link,
        ...(bot ? { machine: true as const } : {}),
        ...(Number.isSafeInteger(variant) && variant >= 0 ? { variant } : {}),
      };
    }
    default:
      // Opens are counted by our own pixel; sends, rejects and delays change nothing here.
      return { kind: 'ignored', reason: `${type || 'untyped'} event` };
  }
}

/** Milliseconds from the mail being sent to the click, as SES reports both; undefined when either is missing. */
function sinceSent(record: SesEventRecord): number | undefined {
  const since = Date.parse(record.click?.timestamp ?? '') - Date.parse(record.mail?.timestamp ?? '');
  return Number.isFinite(since) ? since : undefined;
}

/** What one event means besides a delivery (deliveries are counted a batch at a time: ses-event-batch.ts). */
export type EventFeedback = Exclude<Feedback, { kind: 'ignored' | 'delivered' }>;

/** Apply one bounce, complaint or click. */
export async function applyFeedback(feedback: EventFeedback): Promise<void> {
  for (const email of feedback.recipients) {
    if (feedback.kind === 'hard-bounce') {
      await addBouncedAddress(feedback.ref.accountId, email, 'bounce', feedback.detail);
      await recordSendEvent(feedback.ref, 'bounce', email);
    } else if (feedback.kind === 'complaint') {
      await addBouncedAddress(feedback.ref.accountId, email, 'complaint', feedback.detail);
      await recordSendEvent(feedback.ref, 'complaint', email);
    } else if (feedback.machine) {
      await recordBotClick(feedback.ref);
    } else if ((await recordClickOf(feedback.ref, email, feedback.link, feedback.variant)).first) {
      // A person's first click moves the contact in the engagement segments, as our click endpoint's does.
      await onFirstEngagement(feedback.ref, email, 'click');
    }
    // Once recorded, the account's webhooks hear of it (never throws; queues nothing when none subscribes).
    await emitWebhookEvent(webhookEventOf(feedback, email));
  }
  // A bounce or complaint may take the send or automation over its limits: it pauses itself (reputation.ts).
  if (feedback.kind === 'hard-bounce' || feedback.kind === 'complaint') {
    await checkReputation(feedback.ref);
  }
}

/** The webhook event one recipient's feedback is. */
export function webhookEventOf(feedback: Exclude<Feedback, { kind: 'ignored' }>, email: string): WebhookEventInput {
  const { ref } = feedback;
  if (feedback.kind === 'hard-bounce') return { event: 'bounce', ref, email };
  if (feedback.kind === 'click') return { event: 'click', ref, email, url: feedback.link, machine: feedback.machine === true };
  return { event: feedback.kind, ref, email };
}
