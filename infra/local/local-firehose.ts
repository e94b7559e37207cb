// The delivery stream on the laptop: a stand-in of the Amazon Data Firehose stream that archives SES's
// delivery events in S3 (infra/stack/ses-delivery-archive.ts), behaving as its documentation says. A
// record is accepted only once it is kept (appended to a journal on disk, when given a directory: a
// kill, -9 included, loses none, and a start flushes those it finds); records are buffered until
// `bufferBytes` are in or `intervalMs` has passed since the first, then written as one object of
// newline-delimited records (the AppendDelimiterToRecord processor) under the prefix, named as
// Firehose names objects, and S3's `Object Created` event for it is announced (EventBridge puts it on
// the ses-events queue deployed). Like Firehose it delivers at least once: a crash between an object
// and its journal's reset writes those records again in a new object.
import { randomUUID, createHash } from 'node:crypto';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectCreatedEvent } from '../../shared/feedback/delivery-archive';
import { writeLocalObject } from '../../shared/object-store/local-object-store';

/** The file accepted records are kept in until their object is written: one record a line. */
export const recordsFileName = 'records.jsonl';

/** S3's `Object Created` event as EventBridge carries it (the S3 User Guide's example). */
export interface ObjectCreatedEventBridgeEvent extends ObjectCreatedEvent {
  version: '0';
  id: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    version: '0';
    bucket: { name: string };
    object: { key: string; size: number; etag: string; sequencer: string };
    'request-id': string;
    requester: string;
    reason: 'PutObject';
  };
}

export interface LocalFirehoseOptions {
  /** Keep accepted records in this directory until flushed; in memory only when left out. */
  directory?: string;
  /** The object store's root (shared/object-store/local-object-store.ts). */
  objectRoot: string;
  bucket: string;
  /** The objects' key prefix, e.g. `ses-delivery-events/`. */
  prefix: string;
  streamName: string;
  /** Flush once this many bytes are buffered (Firehose's buffering size). */
  bufferBytes: number;
  /** Flush this long after the first record of a buffer (Firehose's buffering interval). */
  intervalMs: number;
  /** Hand S3's event of a new object on; throws when it was not taken (the records then stay buffered). */
  announce: (event: ObjectCreatedEventBridgeEvent) => void;
  region?: string;
  /** Start holding the records (a start's kept ones too) until `release()`: the announcement's queue is not ready yet. */
  held?: boolean;
  log?: (line: string) => void;
}

export interface LocalFirehose {
  /** PutRecordBatch: each record is kept when this returns. A record is one line; it must not contain a line break. */
  put(records: readonly string[]): void;
  /** Start flushing: at once when records are buffered (those a crash left are). */
  release(): void;
  /** Resolves once every record accepted so far is in an object whose event was announced. */
  idle(): Promise<void>;
  /**
   * Stop without flushing: records kept in the directory are flushed by the next start (those of a
   * stream in memory are dropped, as everything of an in-memory stack is at a stop).
   */
  stop(): void;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** Firehose's object name: the prefix, the UTC hour's path, then `<stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<random>`. */
export function firehoseObjectKey(prefix: string, streamName: string, at: Date): string {
  const [y, mo, d, h, mi, s] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()];
  return `${prefix}${y}/${pad(mo)}/${pad(d)}/${pad(h)}/${streamName}-1-${y}-${pad(mo)}-${pad(d)}-${pad(h)}-${pad(mi)}-${pad(s)}-${randomUUID()}`;
}

/** The records a crash left; a last line torn by a kill is left out (its put never returned). */
function loadKept(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '');
}

export function startLocalFirehose(options: LocalFirehoseOptions): LocalFirehose {
  const log = options.log ?? ((line: string) => console.error(line));
  let fd: number | undefined;
  let buffer: string[] = [];
  if (options.directory !== undefined) {
    mkdirSync(options.directory, { recursive: true });
    const file = join(options.directory, recordsFileName);
    buffer = loadKept(file);
    // The file starts again from the complete lines alone, replaced whole so a kill meanwhile loses none.
    writeFileSync(`${file}.new`, buffer.map((record) => `${record}\n`).join(''));
    renameSync(`${file}.new`, file);
    fd = openSync(file, 'a');
  }
  let bytes = buffer.reduce((sum, record) => sum + Buffer.byteLength(record) + 1, 0);
  let held = options.held ?? false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let waiters: Array<() => void> = [];

  const notifyIdle = () => {
    if (buffer.length > 0) return;
    const waiting = waiters;
    waiters = [];
    for (const resolve of waiting) resolve();
  };

  // Synchronous from the object to the journal's reset: no record is accepted in between.
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (held || buffer.length === 0) return;
    const body = buffer.map((record) => `${record}\n`).join('');
    const at = new Date();
    const key = firehoseObjectKey(options.prefix, options.streamName, at);
    try {
      writeLocalObject(options.objectRoot, options.bucket, key, body);
      options.announce({
        version: '0',
        id: randomUUID(),
        'detail-type': 'Object Created',
        source: 'aws.s3',
        account: '000000000000',
        time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: options.region ?? 'us-east-1',
        resources: [`arn:aws:s3:::${options.bucket}`],
        detail: {
          version: '0',
          bucket: { name: options.bucket },
          object: { key, size: Buffer.byteLength(body), etag: createHash('md5').update(body).digest('hex'), sequencer: at.getTime().toString(16).toUpperCase() },
          'request-id': randomUUID(),
          requester: '000000000000',
          reason: 'PutObject',
        },
      });
    } catch (error) {
      // Firehose retries a delivery that failed: the records stay buffered for the next interval.
      log(`delivery stream: object not delivered, retried in ${options.intervalMs} ms (${error instanceof Error ? error.message : String(error)})`);
      if (!stopped) timer = setTimeout(flush, options.intervalMs).unref();
      return;
    }
    buffer = [];
    bytes = 0;
    if (fd !== undefined) ftruncateSync(fd, 0);
    notifyIdle();
  };

  const schedule = () => {
    if (held || stopped || buffer.length === 0) return;
    if (bytes >= options.bufferBytes) flush();
    else timer ??= setTimeout(flush, options.intervalMs).unref();
  };

  // Records a crash left are flushed as any others (once released).
  schedule();

  return {
    put(records) {
      if (stopped) throw new Error('the delivery stream is stopped');
      if (records.length === 0) return;
      for (const record of records) if (/[\r\n]/.test(record)) throw new Error('a record of the delivery stream is one line');
      // Kept before the put returns: an accepted record survives a kill.
      if (fd !== undefined) writeSync(fd, records.map((record) => `${record}\n`).join(''));
      for (const record of records) {
        buffer.push(record);
        bytes += Buffer.byteLength(record) + 1;
      }
      schedule();
    },
    release() {
      if (!held) return;
      held = false;
      if (buffer.length > 0) flush();
    },
    idle: () => (buffer.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      if (fd !== undefined) closeSync(fd);
    },
  };
}
