// SES's delivery events as the delivery stream archives them (infra/stack/ses-delivery-archive.ts):
// one S3 object of newline-delimited EventBridge events, announced on the ses-events queue by S3's
// `Object Created` event. Read whole through the object-store port and applied a chunk at a time,
// so an object of any size holds only one chunk's writes in flight.
import { config } from '../config';
import { readObject } from '../object-store/object-store';
import { sesRecordOf, type SesEventBridgeEvent, type SesEventRecord } from './ses-feedback';

/** One event of an object, named by its line (the batch logic's shape: ses-event-batch.ts). */
interface ArchivedEvent {
  id: string;
  record: SesEventRecord;
}

/** The parts of S3's `Object Created` EventBridge event that name the object. */
export interface ObjectCreatedEvent {
  source: 'aws.s3';
  'detail-type': 'Object Created';
  detail: { bucket: { name: string }; object: { key: string; size?: number } };
}

/** An archived object of delivery events: its bucket and key. */
export interface DeliveryArchive {
  bucket: string;
  key: string;
}

/**
 * Events applied together: each send's deliveries of a chunk are counted in one write, and a chunk's
 * marker claims go out side by side. An object of the stream's 1 MiB buffer holds about 700.
 */
export const archiveChunkEvents = 500;

/** Whether a queue message's body is S3's announcement of an object rather than an SES event. */
export function isObjectCreated(body: unknown): body is ObjectCreatedEvent {
  const event = body as Partial<ObjectCreatedEvent> | null;
  return typeof event === 'object' && event !== null && event.source === 'aws.s3' && event['detail-type'] === 'Object Created';
}

/** The object an announcement names; throws for one outside the archive's bucket (nothing else is read). */
export function archiveOf(event: ObjectCreatedEvent): DeliveryArchive {
  const bucket = event.detail?.bucket?.name;
  const key = event.detail?.object?.key;
  if (typeof bucket !== 'string' || typeof key !== 'string' || key === '') throw new Error('An Object Created event without its bucket and key');
  if (bucket !== config().sesEventBucket) throw new Error(`An object of bucket '${bucket}', not of the SES event archive '${config().sesEventBucket}'`);
  return { bucket, key };
}

/**
 * Apply every event of an archived object, a chunk at a time, through `apply` (the batch logic of
 * ses-event-batch.ts); throws when the object cannot be read or any of its events failed or could not
 * be read, after applying all the others. A re-applied event counts nothing twice (its markers), so
 * the whole object may come back.
 */
export async function applyArchive(archive: DeliveryArchive, apply: (events: readonly ArchivedEvent[]) => Promise<Map<string, unknown>>): Promise<number> {
  const text = (await readObject(archive.bucket, archive.key)).toString('utf8');
  const lines = text.split('\n');
  let unreadable: unknown;
  let chunk: ArchivedEvent[] = [];
  let failure: unknown;
  let applied = 0;
  const flush = async () => {
    const failures = await apply(chunk);
    applied += chunk.length - failures.size;
    for (const error of failures.values()) failure ??= error;
    chunk = [];
  };
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      chunk.push({ id: `${archive.key}#${index}`, record: sesRecordOf(JSON.parse(line) as Partial<SesEventBridgeEvent>) });
    } catch (error) {
      unreadable ??= new Error(`Line ${index + 1} of s3://${archive.bucket}/${archive.key} is not an SES event: ${(error as Error).message}`);
    }
    if (chunk.length === archiveChunkEvents) await flush();
  }
  if (chunk.length > 0) await flush();
  if (failure !== undefined) throw failure;
  if (unreadable !== undefined) throw unreadable;
  return applied;
}
