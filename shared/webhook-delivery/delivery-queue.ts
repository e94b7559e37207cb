// The webhook queue's consumer. A message is a delivery (one event for one webhook) or a step of a
// webhook's circuit breaker (circuit-service.ts). A delivery is POSTed, or parked in the table
// while its webhook's circuit is open. A failed attempt is acknowledged and queued again as a new
// message carrying its attempt count and the time of its next attempt: SQS delays a message at most
// 15 minutes, so a longer wait is that message queued on again until its time, and no message is held
// in flight. The last failure gives the delivery up. A webhook deleted meanwhile is not called.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log } from '../log';
import { consumeRecords } from '../queue/consumer';
import { currentTime } from '../time';
import { clearFailures, getCircuit, recordFailure } from '../webhooks/circuit';
import { attemptDelivery, maxDeliveryAttempts, retryDelayAfter } from './delivery';
import type { WebhookDeliveryMessage } from './events';
import { getStoredWebhook } from '../webhooks/repository';
import {
  circuitFailureThreshold,
  openCircuitFor,
  parkWhileOpen,
  runDrain,
  runProbe,
  sendWebhookMessages,
  type IdentifiedDelivery,
  type WebhookDrainMessage,
  type WebhookProbeMessage,
} from './circuit-service';

type WebhookQueueMessage = { kind: 'delivery'; message: WebhookDeliveryMessage } | { kind: 'probe'; message: WebhookProbeMessage } | { kind: 'drain'; message: WebhookDrainMessage };

function parseMessage(body: string): WebhookQueueMessage {
  const message = JSON.parse(body) as Record<string, unknown>;
  if (Number.isSafeInteger(message.account_id) && Number.isSafeInteger(message.webhook_id)) {
    if (typeof message.probe_at === 'number') return { kind: 'probe', message: message as unknown as WebhookProbeMessage };
    if (typeof message.drain_for === 'number' && Number.isSafeInteger(message.shard)) return { kind: 'drain', message: message as unknown as WebhookDrainMessage };
    if (typeof message.payload === 'object' && message.payload !== null) return { kind: 'delivery', message: message as unknown as WebhookDeliveryMessage };
  }
  throw new Error('Not a webhook queue message');
}

async function deliverRecord(record: SQSRecord, message: WebhookDeliveryMessage): Promise<void> {
  const { account_id: accountId, webhook_id: webhookId } = message;
  const now = currentTime().getTime();
  const { not_before: due, ...rest } = message;
  const delivery: IdentifiedDelivery = {
    ...rest,
    delivery_id: message.delivery_id ?? record.messageId,
    // A message queued before retries were messages of their own counts its attempts by its receives.
    attempts: message.attempts ?? (Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1) - 1,
  };
  if (due !== undefined && due > now) {
    await sendWebhookMessages(accountId, [{ ...delivery, not_before: due }], due - now);
    return;
  }
  const webhook = await getStoredWebhook(accountId, webhookId);
  if (!webhook) {
    log.info('webhook deleted; event dropped', { accountId, webhookId });
    return;
  }
  const circuit = await getCircuit(accountId, webhookId);
  if (circuit.openSince !== undefined) {
    await parkWhileOpen(delivery, now, circuit);
    return;
  }
  const outcome = await attemptDelivery(webhook, delivery.payload, delivery.delivery_id);
  if (outcome.delivered) {
    if (circuit.failures > 0) await clearFailures(accountId, webhookId);
    return;
  }
  const failed = { ...delivery, attempts: (delivery.attempts ?? 0) + 1 };
  const context = { accountId, webhookId, event: message.payload.event, attempt: failed.attempts, detail: outcome.detail };
  const failures = await recordFailure(accountId, webhookId, outcome.detail, now);
  if (failures >= circuitFailureThreshold) {
    await openCircuitFor(accountId, webhookId, failures, outcome.detail, now);
    await parkWhileOpen(failed, now);
    log.info('webhook delivery failed; parked while the circuit is open', context);
    return;
  }
  const wait = retryDelayAfter(failed.attempts);
  if (wait === undefined) {
    log.warn(`webhook delivery failed ${maxDeliveryAttempts} times; given up`, context);
    return;
  }
  log.info('webhook delivery failed; retrying later', { ...context, retryInSeconds: wait });
  await sendWebhookMessages(accountId, [{ ...failed, not_before: now + wait * 1000 }], wait * 1000);
}

async function handleRecord(record: SQSRecord): Promise<void> {
  const parsed = parseMessage(record.body);
  if (parsed.kind === 'probe') return runProbe(parsed.message);
  if (parsed.kind === 'drain') return runDrain(parsed.message);
  return deliverRecord(record, parsed.message);
}

export function handleWebhookEvent(event: SQSEvent, context?: Partial<Context>): Promise<SQSBatchResponse> {
  return consumeRecords('webhooks', event, context, 'webhook delivery', handleRecord);
}
