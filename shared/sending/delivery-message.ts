// The delivery queue's message (dispatcher -> deliverer): one send, up to 50 recipients, each with
// every dynamic-content value the deliverer needs, so it reads no contact.
import { decodeSendRef, encodeSendRef, type SendRef } from './send-ref';

export interface DeliveryRecipient {
  email: string;
  contactId: number | null;
  /** Placeholder values by name (contact fields, custom fields, full_name). */
  fields: Record<string, string>;
}

export interface DeliveryMessage {
  ref: SendRef;
  recipients: DeliveryRecipient[];
  /**
   * Identifies the batch within its send for settlement (single sends count settled batches to
   * know when they are complete). The same page fanned out twice gets the same ids.
   */
  batchId?: string;
  /**
   * What earlier messages of the same batch already settled, when throttled recipients were handed
   * on to a fresh message; the batch is counted once, with both parts.
   */
  settledBefore?: { sent: number; skipped: number; failed: number };
}

/** Recipients per message: 50 keeps a message far below SQS's 256 KiB and a batch within one Lambda run. */
export const recipientsPerMessage = 50;

/** The JSON form put on the queue. */
export function deliveryMessageBody(message: DeliveryMessage): Record<string, unknown> {
  return {
    ref: message.ref,
    recipients: message.recipients,
    ...(message.batchId ? { batchId: message.batchId } : {}),
    ...(message.settledBefore ? { settledBefore: message.settledBefore } : {}),
  };
}

function isRecipient(value: unknown): value is DeliveryRecipient {
  const recipient = value as DeliveryRecipient;
  return (
    typeof recipient?.email === 'string' &&
    (recipient.contactId === null || Number.isSafeInteger(recipient.contactId)) &&
    typeof recipient.fields === 'object' &&
    recipient.fields !== null &&
    Object.values(recipient.fields).every((field) => typeof field === 'string')
  );
}

/** The message in a queue record's body; throws on anything else (such a message can never succeed). */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  const parsed = JSON.parse(body) as { ref?: unknown; recipients?: unknown; batchId?: unknown; settledBefore?: unknown };
  // The ref travels as the SendRef object; its compact text is accepted too. Either is checked by a round trip.
  const ref = typeof parsed.ref === 'string' ? decodeSendRef(parsed.ref) : decodeSendRef(encodeSendRef(parsed.ref as SendRef));
  if (!Array.isArray(parsed.recipients) || !parsed.recipients.every(isRecipient)) throw new Error('A delivery message needs a recipients array of {email, contactId, fields}');
  if (parsed.batchId !== undefined && typeof parsed.batchId !== 'string') throw new Error('A delivery message batchId must be text');
  const before = parsed.settledBefore as DeliveryMessage['settledBefore'];
  const settledBefore = before && [before.sent, before.skipped, before.failed].every(Number.isSafeInteger) ? before : undefined;
  return { ref, recipients: parsed.recipients, ...(parsed.batchId ? { batchId: parsed.batchId } : {}), ...(settledBefore ? { settledBefore } : {}) };
}
