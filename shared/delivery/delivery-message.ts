// The delivery queue's message (dispatcher -> deliverer): one send, up to 50 recipients, each with
// every dynamic-content value the deliverer needs, so it reads no contact. A message is also kept
// within SQS's size limit: a page is split by serialized size as well as by count.
import { maxBatchBytes } from '../queue/queues';
import { decodeSendRef, encodeSendRef, type SendRef } from '../ledger/send-ref';

export interface DeliveryRecipient {
  email: string;
  contactId: number | null;
  /** Placeholder values by name (contact fields, custom fields, full_name). */
  fields: Record<string, string>;
  /** A contact of a double opt-in type that has not confirmed yet: counted skipped, never mailed. */
  pending?: true;
}

export interface SettledBefore {
  sent: number;
  skipped: number;
  failed: number;
  uncertain?: number;
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
  settledBefore?: SettledBefore;
  /** Set on a batch of an A/B test's share: the index of the subject its recipients get. */
  variant?: number;
  /** Its send began dispatching after the ledger was kept by address: none of its entries is stored in the layout before. */
  ledgerByAddress?: true;
  /** Its send began dispatching once its account's suppression state was complete: one state item per recipient says who is suppressed. */
  suppressionState?: true;
}

/**
 * Recipients per message (one batch) at most. Each batch is settled by one transaction on the send's
 * dispatch item, counters and its own marker (about 9.5 write units with the dispatch item's index
 * entry): per mail that is 0.19 at 50 and 0.095 at 100. A batch need not fit in one Lambda run: what a
 * run does not reach continues in a fresh message of the batch. Large fields make a message smaller
 * (see packRecipients).
 */
export const recipientsPerMessage = 100;

/**
 * Room kept below SQS's limit in every message for what is added after packing: the batch id, and
 * the counts a deliverer adds when it hands a message's unreached recipients on (settledBefore).
 */
const headroomBytes = 1_024;

/** The largest delivery message the dispatcher writes (serialized JSON bytes). */
export const maxDeliveryMessageBytes = maxBatchBytes - headroomBytes;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** A recipient whose own fields could not fit in one message: which values were left out of it. */
export interface TrimmedRecipient {
  email: string;
  contactId: number | null;
  /** Field names left out, largest value first (their placeholders render empty). */
  dropped: string[];
}

/** The recipient within `budget` bytes: its largest field values left out, one by one, until it fits. */
function fitRecipient(recipient: DeliveryRecipient, budget: number): { recipient: DeliveryRecipient; dropped: string[] } {
  if (jsonBytes(recipient) <= budget) return { recipient, dropped: [] };
  const fields = { ...recipient.fields };
  const largestFirst = Object.keys(fields).sort((a, b) => jsonBytes(fields[b]) + jsonBytes(b) - (jsonBytes(fields[a]) + jsonBytes(a)) || a.localeCompare(b));
  const dropped: string[] = [];
  for (const name of largestFirst) {
    delete fields[name];
    dropped.push(name);
    if (jsonBytes({ ...recipient, fields }) <= budget) break;
  }
  return { recipient: { ...recipient, fields }, dropped };
}

/**
 * Split recipients (in order) into the recipients of successive messages of one send: each at most
 * `recipientsPerMessage` and at most `maxDeliveryMessageBytes` once serialized. The same input always
 * gives the same split, so a replayed page reproduces its batch ids. A recipient that alone would
 * exceed the limit still travels, without its largest field values; `onTrimmed` is told which.
 */
export function packRecipients(ref: SendRef, recipients: readonly DeliveryRecipient[], onTrimmed?: (trimmed: TrimmedRecipient) => void): DeliveryRecipient[][] {
  const overhead = jsonBytes(deliveryMessageBody({ ref, recipients: [] }));
  const budget = maxDeliveryMessageBytes - overhead;
  const groups: DeliveryRecipient[][] = [];
  let current: DeliveryRecipient[] = [];
  let bytes = 0;
  for (const original of recipients) {
    const { recipient, dropped } = fitRecipient(original, budget);
    if (dropped.length > 0) onTrimmed?.({ email: recipient.email, contactId: recipient.contactId, dropped });
    const size = jsonBytes(recipient);
    // Within the array, each recipient after the first adds a comma.
    if (current.length === recipientsPerMessage || (current.length > 0 && bytes + 1 + size > budget)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    bytes += (current.length > 0 ? 1 : 0) + size;
    current.push(recipient);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The JSON form put on the queue. */
export function deliveryMessageBody(message: DeliveryMessage): Record<string, unknown> {
  return {
    ref: message.ref,
    recipients: message.recipients,
    ...(message.batchId ? { batchId: message.batchId } : {}),
    ...(message.settledBefore ? { settledBefore: message.settledBefore } : {}),
    ...(message.variant !== undefined ? { variant: message.variant } : {}),
    ...(message.ledgerByAddress ? { ledgerByAddress: true } : {}),
    ...(message.suppressionState ? { suppressionState: true } : {}),
  };
}

function isRecipient(value: unknown): value is DeliveryRecipient {
  const recipient = value as DeliveryRecipient;
  return (
    typeof recipient?.email === 'string' &&
    (recipient.contactId === null || Number.isSafeInteger(recipient.contactId)) &&
    (recipient.pending === undefined || recipient.pending === true) &&
    typeof recipient.fields === 'object' &&
    recipient.fields !== null &&
    Object.values(recipient.fields).every((field) => typeof field === 'string')
  );
}

/** The message in a queue record's body; throws on anything else (such a message can never succeed). */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  const parsed = JSON.parse(body) as { ref?: unknown; recipients?: unknown; batchId?: unknown; settledBefore?: unknown; variant?: unknown; ledgerByAddress?: unknown; suppressionState?: unknown };
  // The ref travels as the SendRef object; its compact text is accepted too. Either is checked by a round trip.
  const ref = typeof parsed.ref === 'string' ? decodeSendRef(parsed.ref) : decodeSendRef(encodeSendRef(parsed.ref as SendRef));
  if (!Array.isArray(parsed.recipients) || !parsed.recipients.every(isRecipient)) throw new Error('A delivery message needs a recipients array of {email, contactId, fields}');
  if (parsed.batchId !== undefined && typeof parsed.batchId !== 'string') throw new Error('A delivery message batchId must be text');
  const { variant } = parsed;
  if (variant !== undefined && !(typeof variant === 'number' && Number.isSafeInteger(variant) && variant >= 0)) throw new Error('A delivery message variant must be a subject index');
  const before = parsed.settledBefore as DeliveryMessage['settledBefore'];
  const counts = before ? [before.sent, before.skipped, before.failed, ...(before.uncertain === undefined ? [] : [before.uncertain])] : [];
  const settledBefore = before && counts.every(Number.isSafeInteger) ? before : undefined;
  return {
    ref,
    recipients: parsed.recipients,
    ...(parsed.batchId ? { batchId: parsed.batchId } : {}),
    ...(settledBefore ? { settledBefore } : {}),
    ...(variant !== undefined ? { variant } : {}),
    ...(parsed.ledgerByAddress === true ? { ledgerByAddress: true as const } : {}),
    ...(parsed.suppressionState === true ? { suppressionState: true as const } : {}),
  };
}
