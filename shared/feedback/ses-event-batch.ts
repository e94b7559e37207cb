// SES's events as the ses-events queue hands them over, a batch at a time: each send's deliveries are
// counted together (one counter write per send and batch: statistics/delivery-counts.ts), every other
// event one by one, and only the records whose work failed go back to the queue (partial batch
// response). A send's deliveries fail together: their markers were given back, so they count again whole.
// A message is either one SES event (bounces, complaints, clicks: EventBridge puts each on the queue)
// or S3's announcement of an object of delivery events the delivery stream archived (delivery-archive.ts).
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { log } from '../log';
import { consumeRecords } from '../queue/consumer';
import { sendMessages } from '../queue/queue';
import { remainingOf, timeLeft } from '../time-left';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';
import { recordDeliveries } from '../statistics/delivery-counts';
import { emitWebhookEvent } from '../webhook-delivery/events';
import { applyArchive, archiveOf, isObjectCreated, type DeliveryArchive } from './delivery-archive';
import { applyFeedback, feedbackOf, sesRecordOf, webhookEventOf, type EventFeedback, type Feedback, type SesEventBridgeEvent, type SesEventRecord } from './ses-feedback';

/** One SES event of a batch, named by its message id. */
export interface SesBatchEvent {
  id: string;
  record: SesEventRecord;
}

type Delivered = Extract<Feedback, { kind: 'delivered' }>;

/** The delivery events of one send or step in a batch. */
interface DeliveryGroup {
  ref: SendRef;
  events: { id: string; feedback: Delivered }[];
}

/** Apply a batch of events; resolves to the error of each event that failed, by id. */
export async function applySesEvents(events: readonly SesBatchEvent[]): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  const deliveries = new Map<string, DeliveryGroup>();
  const others: { id: string; feedback: EventFeedback }[] = [];
  for (const { id, record } of events) {
    const feedback = feedbackOf(record);
    if (feedback.kind === 'ignored') {
      log.info('SES event ignored', { reason: feedback.reason, messageId: record.mail?.messageId });
    } else if (feedback.kind === 'delivered') {
      const key = encodeSendRef(feedback.ref);
      const group = deliveries.get(key) ?? { ref: feedback.ref, events: [] };
      group.events.push({ id, feedback });
      deliveries.set(key, group);
    } else {
      others.push({ id, feedback });
    }
  }
  // Deliveries first, each send's apart and side by side: a bounce or complaint below is then judged
  // against rates with the batch's deliveries in them.
  await Promise.all(
    [...deliveries.values()].map((group) =>
      countGroup(group).catch((error: unknown) => {
        for (const { id } of group.events) failures.set(id, error);
      }),
    ),
  );
  // Applying one twice is harmless (suppression is idempotent, statistics count once per recipient),
  // except that a click delivered twice adds twice to the total `clicks` (never to `unique_clicks`).
  for (const { id, feedback } of others) {
    await applyFeedback(feedback).catch((error: unknown) => failures.set(id, error));
  }
  return failures;
}

async function countGroup(group: DeliveryGroup): Promise<void> {
  await recordDeliveries(
    group.ref,
    group.events.flatMap(({ feedback }) => feedback.recipients),
    { countedBefore: group.events.some(({ feedback }) => feedback.countedBefore) },
  );
  // Then the account's webhooks hear of every event, a repeated one too, as when each event was
  // applied alone (emitting never throws; it queues nothing when none subscribes). One after another:
  // the first looks the account's webhooks up, the rest find them in the container's copy.
  for (const { feedback } of group.events) {
    for (const email of feedback.recipients) await emitWebhookEvent(webhookEventOf(feedback, email));
  }
}

/**
 * Time kept in hand after the last archived object: the batch's own SES events (up to a batch of
 * bounces and clicks, a few writes each) and the answer.
 */
export const archiveReserveMs = 5_000;

/**
 * The ses-events function: a batch from its queue (the EventBridge event of each SES event, or of
 * each archived object of deliveries, in each message's body), or one EventBridge event invoked
 * directly, as the rule did before the queue; such an invocation Lambda still held for a retry when
 * the stack changed arrives in that shape, and throws when it fails so Lambda retries it.
 */
export async function handleSesEvents(event: SQSEvent | SesEventBridgeEvent, context?: Partial<Context>): Promise<SQSBatchResponse | undefined> {
  if (!('Records' in event)) {
    const failures = await applySesEvents([{ id: event.id, record: sesRecordOf(event) }]);
    for (const error of failures.values()) throw error;
    return undefined;
  }
  const failures = new Map<string, unknown>();
  const events: SesBatchEvent[] = [];
  const archives: { record: SQSRecord; archive: DeliveryArchive }[] = [];
  for (const record of event.Records) {
    try {
      const body = JSON.parse(record.body) as unknown;
      if (isObjectCreated(body)) archives.push({ record, archive: archiveOf(body) });
      else events.push({ id: record.messageId, record: sesRecordOf(body as Partial<SesEventBridgeEvent>) });
    } catch (error) {
      // Never readable: it dead-letters after its receives.
      failures.set(record.messageId, error);
    }
  }
  // The archived deliveries first, so a bounce or complaint below is judged against rates with them in.
  for (const [id, error] of await applyArchives(archives, context)) failures.set(id, error);
  for (const [id, error] of await applySesEvents(events)) failures.set(id, error);
  return consumeRecords('ses-events', event, context, 'SES event', async (record) => {
    if (failures.has(record.messageId)) throw failures.get(record.messageId);
  });
}

/**
 * Apply each object one after another while the next fits in the time left (as long as the longest
 * so far); the objects that do not go back on the queue as fresh messages, so a batch of many objects
 * never runs into the timeout nor spends its messages' receives. Resolves to each failure by message id.
 */
async function applyArchives(archives: readonly { record: SQSRecord; archive: DeliveryArchive }[], context: Partial<Context> | undefined): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  const fits = timeLeft(remainingOf(context), { reserveMs: archiveReserveMs, longestStepTimes: 1 });
  for (const [index, { record, archive }] of archives.entries()) {
    if (index > 0 && !fits()) {
      const later = archives.slice(index).map(({ record: left }) => left);
      try {
        await sendMessages('ses-events', later.map((left) => JSON.parse(left.body) as unknown));
        log.info('SES event archives handed over to fresh messages', { objects: later.length });
      } catch (error) {
        for (const left of later) failures.set(left.messageId, error);
      }
      break;
    }
    try {
      const applied = await applyArchive(archive, applySesEvents);
      log.info('SES event archive applied', { key: archive.key, events: applied });
    } catch (error) {
      // Logged with its message id by the consumer; the message comes back, and the whole object with it.
      failures.set(record.messageId, error);
    }
  }
  return failures;
}
