// The webhook queue's consumer (SQS, partial batch failures): POSTs each event to its webhook, signed.
import { eventHandler } from '../../shared/event-entry';
import { handleWebhookEvent } from '../../shared/webhook-delivery/delivery-queue';

export const handler = eventHandler(handleWebhookEvent);
