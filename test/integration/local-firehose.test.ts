// The delivery stream's local stand-in behaves as Firehose's documentation says: records are kept
// before a put returns, buffered until the size or the interval is reached, written as one object of
// newline-delimited records under the prefix and announced as S3 announces an object; records a kill
// left behind are flushed after the restart, and a failed announcement is retried.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordsFileName, startLocalFirehose, type LocalFirehose, type LocalFirehoseOptions, type ObjectCreatedEventBridgeEvent } from '../../infra/local/local-firehose';
import { localObjectPath } from '../../shared/object-store/local-object-store';

let root: string;
let announced: ObjectCreatedEventBridgeEvent[];
const started: LocalFirehose[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'local-firehose-'));
  announced = [];
});

afterEach(() => {
  for (const stream of started.splice(0)) stream.stop();
  rmSync(root, { recursive: true, force: true });
});

function start(options: Partial<LocalFirehoseOptions> = {}): LocalFirehose {
  const stream = startLocalFirehose({
    objectRoot: join(root, 'objects'),
    bucket: 'archive-bucket',
    prefix: 'ses-delivery-events/',
    streamName: 'ses-delivery-events',
    bufferBytes: 1024 * 1024,
    intervalMs: 60_000,
    announce: (event) => void announced.push(event),
    log: () => undefined,
    ...options,
  });
  started.push(stream);
  return stream;
}

/** The lines of the object an announcement names. */
const linesOf = (event: ObjectCreatedEventBridgeEvent) => readFileSync(localObjectPath(join(root, 'objects'), event.detail.bucket.name, event.detail.object.key), 'utf8').split('\n');

const record = (n: number) => JSON.stringify({ 'detail-type': 'Email Delivered', n });

test('flushes as soon as the buffered records reach the buffering size, one record a line', () => {
  const stream = start({ bufferBytes: 3 * (record(0).length + 1) });
  stream.put([record(0), record(1)]);
  expect(announced).toEqual([]);

  stream.put([record(2)]);

  expect(announced).toHaveLength(1);
  const [event] = announced as [ObjectCreatedEventBridgeEvent];
  expect(event).toMatchObject({ source: 'aws.s3', 'detail-type': 'Object Created', resources: ['arn:aws:s3:::archive-bucket'], detail: { bucket: { name: 'archive-bucket' }, reason: 'PutObject' } });
  expect(event.detail.object.key).toMatch(/^ses-delivery-events\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/ses-delivery-events-1-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}$/);
  expect(linesOf(event)).toEqual([record(0), record(1), record(2), '']);
  expect(event.detail.object.size).toBe(3 * (record(0).length + 1));
});

test('flushes what it holds once the buffering interval has passed since the first record', async () => {
  const stream = start({ intervalMs: 30 });
  stream.put([record(0)]);
  stream.put([record(1)]);
  expect(announced).toEqual([]);

  await stream.idle();

  expect(announced.map(linesOf)).toEqual([[record(0), record(1), '']]);
  // Nothing more to flush: the next interval starts with the next record.
  stream.put([record(2)]);
  await stream.idle();
  expect(announced.map(linesOf)).toEqual([[record(0), record(1), ''], [record(2), '']]);
});

test('records accepted before a kill are flushed after the restart, once released; a line torn by the kill is left out', async () => {
  const directory = join(root, 'stream');
  const before = start({ directory });
  before.put([record(0), record(1)]);
  // Killed: no stop, no flush. A put cut short by the kill left half a line.
  started.splice(0);
  appendFileSync(join(directory, recordsFileName), '{"detail-type":"Email Deli');

  const after = start({ directory, held: true, intervalMs: 30 });
  after.put([record(2)]);
  expect(announced).toEqual([]);
  after.release();

  expect(announced.map(linesOf)).toEqual([[record(0), record(1), record(2), '']]);
  // Flushed: the journal is empty, so a third start finds nothing.
  after.stop();
  start({ directory }).stop();
  expect(announced).toHaveLength(1);
});

test('an announcement the queue refused keeps the records, and the next interval delivers them', async () => {
  let refuse = true;
  const stream = start({
    intervalMs: 20,
    announce: (event) => {
      if (refuse) throw new Error('queue closed');
      announced.push(event);
    },
  });
  stream.put([record(0)]);
  await new Promise((done) => setTimeout(done, 60));
  expect(announced).toEqual([]);

  refuse = false;
  await stream.idle();

  expect(announced.map(linesOf)).toEqual([[record(0), '']]);
});

test('refuses a record with a line break, which would split its line', () => {
  expect(() => start().put(['{"a":\n1}'])).toThrow(/one line/);
});
