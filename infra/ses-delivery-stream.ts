// The delivery stream's settings, shared by the stack (stack/ses-delivery-archive.ts) and its local
// stand-in (local/local-firehose.ts), so both buffer SES's delivery events and name their objects alike.

/** Where the stream writes its objects in the archive bucket (Firehose adds the UTC `yyyy/MM/dd/HH/` path). */
export const deliveryEventsPrefix = 'ses-delivery-events/';

/**
 * The stream's buffering size: Firehose's smallest, 1 MiB. An object then holds at most about 700
 * delivery events (an event is about 1.5 KB), which ses-events applies in a few seconds, well inside
 * its time limit; a bigger buffer would only fill at rates where the interval already flushes often.
 */
export const deliveryBufferBytes = 1024 * 1024;

/**
 * The stream's buffering interval deployed: an object at least every 30 s while deliveries come in, as
 * SendGrid's event webhook batches. A delivery is counted (and its webhook sent) up to this much later
 * than before; at 14 mails a second an object holds about 420 events, so each of its fixed costs (an S3
 * PUT and GET, an SQS message) is shared by hundreds of mails.
 */
export const deliveryBufferSeconds = 30;

/**
 * The local stand-in's interval under `npm start` (DELIVERY_STREAM_INTERVAL_MS sets another): a
 * laptop's sends are small, and a developer waits for their counts; 5 s shows the batching without
 * the deployed 30 s wait. The e2e stacks use 250 ms.
 */
export const localDeliveryBufferMs = 5_000;

/** How long the archive bucket keeps an object: room for an operator to replay a few days (docs/operations.md). */
export const deliveryArchiveDays = 7;
