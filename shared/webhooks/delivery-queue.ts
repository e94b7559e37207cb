// The webhook queue's consumer: each message is one event for one webhook. Delivers it; a failure
// comes back after the backoff's next wait (the message's visibility is changed, then it is reported
// failed), and the last one goes to the dead-letter queue. A webhook deleted meanwhile is not called.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log } from '../log';
import { consumeRecords, RedeliverMessage } from '../queue/consumer';
import { retryMessageAfter } from '../queue/visibility';
import { deliverWebhook, maxDeliveryAttempts, retryDelayAfter } from './delivery';
import type { WebhookDeliveryMessage } from './events';
import { getStoredWebhook } from './repository';
import { decryptSecret, isLegacySealed } from './secret';

function parseMessage(body: string): WebhookDeliveryMessage {
  const message = JSON.parse(body) as Partial<WebhookDeliveryMessage>;
  if (!Number.isSafeInteger(message.account_id) || !Number.isSafeInteger(message.webhook_id) || typeof message.payload !== 'object' || message.payload === null) {
    throw new Error('Not a webhook delivery message');
  }
  return message as WebhookDeliveryMessage;
}

function attemptOf(record: SQSRecord): number {
  return Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1;
}

async function deliverRecord(record: SQSRecord): Promise<void> {
  const message = parseMessage(record.body);
  const webhook = await getStoredWebhook(message.account_id, message.webhook_id);
  if (!webhook) {
    log.info('webhook deleted; event dropped', { accountId: message.account_id, webhookId: message.webhook_id });
    return;
  }
  const attempt = attemptOf(record);
  // A secret still sealed under the token-signing key waits for the re-seal, on the same backoff as a
  // receiver that is down, so its deliveries go out once the operator has run it.
  const outcome = isLegacySealed(webhook.encrypted_secret)
    ? { delivered: false, detail: 'secret sealed under the token-signing key: run npm run webhooks:reseal (docs/operations.md)' }
    : await deliverWebhook({ url: webhook.url, secret: decryptSecret(webhook.encrypted_secret), payload: message.payload, deliveryId: record.messageId });
  if (outcome.delivered) return;
  const context = { accountId: message.account_id, webhookId: webhook.id, event: message.payload.event, attempt, detail: outcome.detail };
  const wait = retryDelayAfter(attempt);
  if (wait === undefined || attempt >= maxDeliveryAttempts) {
    // Reported failed once more: the queue's redrive moves it to the dead-letter queue.
    log.warn('webhook delivery failed for the last time', context);
    throw new Error(`webhook ${webhook.id} delivery failed ${attempt} times: ${outcome.detail}`);
  }
  log.info('webhook delivery failed; retrying later', { ...context, retryInSeconds: wait });
  await retryMessageAfter('webhooks', record.receiptHandle, wait);
  throw new RedeliverMessage(`webhook delivery retried in ${wait} s`);
}

export function handleWebhookEvent(event: SQSEvent, context?: Partial<Context>): Promise<SQSBatchResponse> {
  return consumeRecords('webhooks', event, context, 'webhook delivery', deliverRecord);
}
