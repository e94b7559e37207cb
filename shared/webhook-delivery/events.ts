// Emitting webhook events from where they happen (SES feedback, the open pixel, unsubscribes, clicks):
// one queue message per subscribed webhook, delivered by functions/webhook-deliver. Cheap on those
// paths: an account's webhooks are checked at most once a second per container, and nothing is queued
// when none subscribes (webhook-cache.ts). Never throws: a webhook problem must not fail the event's own handling.
import { describeError, log } from '../log';
import { sendMessages } from '../queue/queue';
import type { SendRef } from '../ledger/send-ref';
import { isoTimestamp } from '../time';
import type { WebhookPayload } from './delivery';
import type { WebhookEvent } from '../webhooks/repository';
import { webhooksOf } from '../webhooks/webhook-cache';

/**
 * The message the deliverer receives: one event for one webhook. A new event carries none of the
 * optional fields; a retry is a new message carrying them, so no message waits in flight.
 */
export interface WebhookDeliveryMessage {
  account_id: number;
  webhook_id: number;
  payload: WebhookPayload;
  /** The delivery's `webhook-id`, the same on every attempt: its first message's id. */
  delivery_id?: string;
  /** Attempts made (all failed). */
  attempts?: number;
  /** Epoch ms of its next attempt: a wait longer than SQS's longest delay is sent again until then. */
  not_before?: number;
}

export interface WebhookEventInput {
  event: WebhookEvent;
  /** The send (or automation step) the mail came from. */
  ref: SendRef;
  email: string;
  /** The link clicked (click events only). */
  url?: string;
  /** Open and click events: a machine's open or a bot's click (a person's when left out). */
  machine?: boolean;
  at?: Date;
}

/** The utr a receiver knows the mail by: the single send's, or the automation's. */
function utrOf(ref: SendRef): string {
  return ref.kind === 'single-send' ? ref.utr : ref.automationUtr;
}

/** Queue the event for each of the account's webhooks subscribed to it; logs and swallows any failure. */
export async function emitWebhookEvent(input: WebhookEventInput): Promise<void> {
  const accountId = input.ref.accountId;
  try {
    const subscribed = (await webhooksOf(accountId)).filter((webhook) => webhook.events.includes(input.event));
    if (subscribed.length === 0) return;
    const payload: WebhookPayload = {
      event: input.event,
      email: input.email,
      utr: utrOf(input.ref),
      ...(input.event === 'click' && input.url !== undefined ? { url: input.url } : {}),
      ...(input.event === 'open' || input.event === 'click' ? { machine: input.machine ?? false } : {}),
      timestamp: isoTimestamp(input.at),
    };
    const messages: WebhookDeliveryMessage[] = subscribed.map((webhook) => ({ account_id: accountId, webhook_id: webhook.id, payload }));
    // The account is the message group: one account's dead receiver does not hold up another's.
    await sendMessages('webhooks', messages, { group: String(accountId) });
  } catch (error) {
    log.error('webhook event not queued', { accountId, event: input.event, ...describeError(error) });
  }
}
