// The local queue adapter: real SQSEvent batches of the queue's batch size (at most 10 without a
// batching window; deliveries one at a time; SES events up to 100, gathered for the window),
// DelaySeconds, partial batch failure redelivery, dead-letter after 3 receives, bounded concurrency,
// message groups served as a fair queue does; kept in a directory, it survives a kill -9.
// The adapter's rules are shown on the imports queue (batches of 10).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { resetConfig } from '../../shared/config';
import { configureLocalQueue, localDeadLetters, localQueueIdle, registerLocalConsumer, stopLocalQueues, takeLocalMessages } from '../../shared/queue/local-queue';
import { sendMessages } from '../../shared/queue/queue';
import { maxReceiveCountOf, queueBatchingWindowSeconds, queueBatchSizes, type QueueName } from '../../shared/queue/queues';
import { sleep, waitFor } from '../support/local-stack';

const repoRoot = join(__dirname, '../..');

/** The queue the adapter's rules are shown on: one with the largest batches. */
const queue: QueueName = 'imports';

const logLines: string[] = [];
let unregister: (() => void) | undefined;

function consume(consumer: (event: SQSEvent) => Promise<SQSBatchResponse | void>): SQSEvent[] {
  const events: SQSEvent[] = [];
  unregister = registerLocalConsumer(queue, async (event) => {
    events.push(event);
    return consumer(event);
  });
  return events;
}

const bodyOf = (record: { body: string }) => JSON.parse(record.body) as { n: number };

beforeEach(() => {
  // The local adapter is chosen from the runtime; TABLE_NAME is required configuration, unused here.
  Object.assign(process.env, { APP_RUNTIME: 'local', TABLE_NAME: process.env.TABLE_NAME ?? 'unused' });
  resetConfig();
  logLines.length = 0;
  configureLocalQueue({ redeliveryDelayMs: 30, log: (line) => logLines.push(line) });
});

afterEach(async () => {
  unregister?.();
  await stopLocalQueues();
});

test('messages arrive as SQS records in batches of at most 10', async () => {
  // Prepare
  const events = consume(async () => undefined);

  // Act
  await sendMessages(queue, Array.from({ length: 25 }, (_, n) => ({ n })));
  await localQueueIdle();

  // Assess
  expect(events.map((event) => event.Records.length)).toEqual([10, 10, 5]);
  const records = events.flatMap((event) => event.Records);
  expect(records.map(bodyOf).map((body) => body.n)).toEqual(Array.from({ length: 25 }, (_, n) => n));
  const record = records[0];
  expect(record).toMatchObject({
    eventSource: 'aws:sqs',
    awsRegion: expect.any(String),
    eventSourceARN: expect.stringMatching(/^arn:aws:sqs:[a-z0-9-]+:\d{12}:imports$/),
    attributes: { ApproximateReceiveCount: '1', SenderId: expect.any(String) },
    messageAttributes: {},
  });
  expect(record?.md5OfBody).toBe(createHash('md5').update(record?.body ?? '').digest('hex'));
  expect(new Set(records.map((entry) => entry.messageId)).size).toBe(25);
});

test('only the records named in batchItemFailures are delivered again', async () => {
  const events = consume(async (event) => ({
    batchItemFailures: event.Records.filter((record) => bodyOf(record).n === 2 && record.attributes.ApproximateReceiveCount === '1').map(
      (record) => ({ itemIdentifier: record.messageId }),
    ),
  }));

  await sendMessages(queue, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  await localQueueIdle();

  expect(events).toHaveLength(2);
  expect(events[1]?.Records.map(bodyOf)).toEqual([{ n: 2 }]);
  expect(events[1]?.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
  expect(events[1]?.Records[0]?.messageId).toBe(events[0]?.Records[1]?.messageId);
  expect(localDeadLetters(queue)).toHaveLength(0);
});

test('a message failing maxReceiveCount (5) receives moves to the dead-letter list, with a log line', async () => {
  const events = consume(async (event) => ({
    batchItemFailures: event.Records.filter((record) => bodyOf(record).n === 13).map((record) => ({ itemIdentifier: record.messageId })),
  }));

  await sendMessages(queue, [{ n: 12 }, { n: 13 }]);
  await localQueueIdle();

  const receives = events.flatMap((event) => event.Records).filter((record) => bodyOf(record).n === 13);
  expect(receives.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3', '4', '5']);
  const dead = localDeadLetters(queue);
  expect(dead).toHaveLength(1);
  expect(dead[0]).toMatchObject({ body: '{"n":13}', receiveCount: 5 });
  expect(logLines.join('\n')).toMatch(/dead-letter/);
});

test('the webhook queue dead-letters after its own receive count', async () => {
  let receives = 0;
  unregister = registerLocalConsumer('webhooks', async (event: SQSEvent) => {
    receives += event.Records.length;
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  });

  await sendMessages('webhooks', [{ n: 1 }]);
  await localQueueIdle();

  expect(maxReceiveCountOf('webhooks')).toBe(8);
  expect(receives).toBe(8);
  expect(localDeadLetters('webhooks').map((letter) => letter.receiveCount)).toEqual([8]);
});

test('a consumer that throws fails its whole batch', async () => {
  let calls = 0;
  const events = consume(async () => {
    calls++;
    if (calls === 1) throw new Error('crashed');
  });

  await sendMessages(queue, [{ n: 1 }, { n: 2 }]);
  await localQueueIdle();

  expect(events.map((event) => event.Records.map(bodyOf))).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 1 }, { n: 2 }]]);
  expect(localDeadLetters(queue)).toHaveLength(0);
});

test('an itemIdentifier that is not in the batch fails the whole batch, as Lambda does', async () => {
  let calls = 0;
  const events = consume(async () => (calls++ === 0 ? { batchItemFailures: [{ itemIdentifier: 'not-a-message-id' }] } : undefined));

  await sendMessages(queue, [{ n: 1 }, { n: 2 }]);
  await localQueueIdle();

  expect(events).toHaveLength(2);
  expect(events[1]?.Records).toHaveLength(2);
});

test('batches in flight are bounded by the configured concurrency', async () => {
  configureLocalQueue({ concurrency: 2 });
  let inFlight = 0;
  let most = 0;
  consume(async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((done) => setTimeout(done, 30));
    inFlight--;
  });

  await sendMessages(queue, Array.from({ length: 60 }, (_, n) => ({ n })));
  await localQueueIdle();

  expect(most).toBe(2);
});

test('without a consumer, messages end in the dead-letter list instead of vanishing', async () => {
  await sendMessages(queue, [{ n: 99 }]);
  await localQueueIdle();

  expect(localDeadLetters(queue)).toEqual([expect.objectContaining({ body: '{"n":99}', reason: expect.stringMatching(/no consumer/) })]);
});

test('one group with a backlog does not starve another: groups are served round-robin, like SQS fair queues', async () => {
  const received: string[] = [];
  let firstBatch: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (firstBatch = resolve));
  consume(async (event) => {
    firstBatch();
    for (const record of event.Records) received.push((JSON.parse(record.body) as { id: string }).id);
    await new Promise((done) => setTimeout(done, 5));
  });

  // Account A's big send builds a backlog; account B's few messages arrive while it drains.
  await sendMessages(queue, Array.from({ length: 200 }, (_, n) => ({ id: `A${n}` })), { group: 'A' });
  await started;
  await sendMessages(queue, Array.from({ length: 5 }, (_, n) => ({ id: `B${n}` })), { group: 'B' });
  await localQueueIdle();

  expect(received).toHaveLength(205);
  const positions = received.map((id, index) => (id.startsWith('B') ? index : -1)).filter((index) => index >= 0);
  expect(positions).toHaveLength(5);
  // Two batches of 10 may already be in flight when B arrives; B goes out with the next ones.
  expect(Math.max(...positions)).toBeLessThan(40);
  // Within a group the order is kept.
  expect(received.filter((id) => id.startsWith('A'))).toEqual(Array.from({ length: 200 }, (_, n) => `A${n}`));
  expect(received.filter((id) => id.startsWith('B'))).toEqual(['B0', 'B1', 'B2', 'B3', 'B4']);
});

test('deliveries come one message per event, and the next goes to the group with the fewest in flight, as SQS serves quiet tenants first', async () => {
  // Every event is held until released, so which message goes next is decided with two in flight.
  const events: string[][] = [];
  const held: Array<() => void> = [];
  let holding = true;
  unregister = registerLocalConsumer('deliveries', async (event) => {
    events.push(event.Records.map((record) => (JSON.parse(record.body) as { id: string }).id));
    if (holding) await new Promise<void>((release) => held.push(release));
  });

  // Account A's backlog fills both consumers; account B's one message comes while they work.
  await sendMessages('deliveries', Array.from({ length: 5 }, (_, n) => ({ id: `A${n}` })), { group: 'A' });
  await waitFor(() => events.length === 2, 5_000, "A's first two messages");
  await sendMessages('deliveries', [{ id: 'B0' }], { group: 'B' });
  held.shift()?.();
  await waitFor(() => events.length === 3, 5_000, 'the next message');
  holding = false;
  held.forEach((release) => release());
  await localQueueIdle();

  // B's message went next (A still had one in flight, B none), and each event held one message.
  expect(events).toEqual([['A0'], ['A1'], ['B0'], ['A2'], ['A3'], ['A4']]);
});

test('a failed message is redelivered within its own group, and the group is on the record', async () => {
  const events = consume(async (event) => ({
    batchItemFailures: event.Records.filter((record) => bodyOf(record).n === 1 && record.attributes.ApproximateReceiveCount === '1').map(
      (record) => ({ itemIdentifier: record.messageId }),
    ),
  }));

  await sendMessages(queue, [{ n: 1 }, { n: 2 }], { group: '7' });
  await sendMessages(queue, [{ n: 3 }]);
  await localQueueIdle();

  const records = events.flatMap((event) => event.Records);
  expect(records.map((record) => [bodyOf(record).n, record.attributes.MessageGroupId])).toEqual([
    [1, '7'],
    [3, undefined],
    [2, '7'],
    [1, '7'],
  ]);
  expect(localDeadLetters(queue)).toHaveLength(0);
});

describe('DelaySeconds, on a simulated clock', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** The queue's batches start on timers too: move the clock on a millisecond at a time until it is idle. */
  async function idleOnTheClock(): Promise<void> {
    let idle = false;
    const idled = localQueueIdle().then(() => (idle = true));
    while (!idle) await jest.advanceTimersByTimeAsync(1);
    await idled;
  }

  test('a message sent with a delay is delivered once it has passed, not before, and a message without one at once', async () => {
    const events = consume(async () => undefined);
    const received = () => events.flatMap((event) => event.Records).map((record) => bodyOf(record).n);
    let idle = false;

    await sendMessages(queue, [{ n: 1 }], { delaySeconds: 900 });
    await sendMessages(queue, [{ n: 2 }]);
    void localQueueIdle().then(() => (idle = true));
    await jest.advanceTimersByTimeAsync(899_999);
    const beforeTheDelay = { received: received(), idle };
    await idleOnTheClock();

    // SQS counts a delayed message as in the queue: the queue is not idle while it waits.
    expect(beforeTheDelay).toEqual({ received: [2], idle: false });
    expect(received()).toEqual([2, 1]);
    expect(events.flatMap((event) => event.Records).map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '1']);
  });

  test('messages still waiting can be taken off the queue with what is left of their delays', async () => {
    const events = consume(async () => undefined);
    await sendMessages(queue, [{ n: 1 }], { delaySeconds: 60, group: '7' });
    await jest.advanceTimersByTimeAsync(20_500);
    await sendMessages(queue, [{ n: 2 }], { delaySeconds: 900 });

    expect(takeLocalMessages(queue)).toEqual([
      { messageId: expect.any(String), body: '{"n":1}', group: '7', delaySeconds: 40 },
      { messageId: expect.any(String), body: '{"n":2}', group: undefined, delaySeconds: 900 },
    ]);
    await jest.advanceTimersByTimeAsync(900_000);
    await idleOnTheClock();
    expect(events).toEqual([]);
  });

  test('a delayed message kept in a directory waits, after a restart, for what is left of its delay', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'local-queue-'));
    try {
      configureLocalQueue({ directory });
      await sendMessages(queue, [{ n: 1 }], { delaySeconds: 600 });
      await jest.advanceTimersByTimeAsync(200_000);
      await stopLocalQueues();

      const events = consume(async () => undefined);
      configureLocalQueue({ directory });
      await jest.advanceTimersByTimeAsync(399_999);
      const beforeTheDelay = events.length;
      await idleOnTheClock();

      expect(beforeTheDelay).toBe(0);
      expect(events.flatMap((event) => event.Records).map(bodyOf)).toEqual([{ n: 1 }]);
    } finally {
      await stopLocalQueues();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('a batching window (the SES events queue), on a simulated clock', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const windowed: QueueName = 'ses-events';
  const windowMs = (queueBatchingWindowSeconds[windowed] ?? 0) * 1000;

  function consumeWindowed(): SQSEvent[] {
    const events: SQSEvent[] = [];
    unregister = registerLocalConsumer(windowed, async (event) => void events.push(event));
    return events;
  }

  test('a full batch goes at once; the rest waits out the window, then goes as it is', async () => {
    const events = consumeWindowed();

    await sendMessages(windowed, Array.from({ length: 150 }, (_, n) => ({ n })));
    await jest.advanceTimersByTimeAsync(10);
    const atOnce = events.map((event) => event.Records.length);
    await jest.advanceTimersByTimeAsync(windowMs - 20);
    const beforeTheWindowEnds = events.map((event) => event.Records.length);
    await jest.advanceTimersByTimeAsync(20);

    expect(queueBatchSizes[windowed]).toBe(100);
    expect(atOnce).toEqual([100]);
    expect(beforeTheWindowEnds).toEqual([100]);
    expect(events.map((event) => event.Records.length)).toEqual([100, 50]);
    expect(events.flatMap((event) => event.Records).map((record) => bodyOf(record).n)).toEqual(Array.from({ length: 150 }, (_, n) => n));
  });

  test('messages sent while the window is open join its batch; the other queues never wait', async () => {
    const events = consumeWindowed();
    const imports: SQSEvent[] = [];
    const unregisterImports = registerLocalConsumer('imports', async (event) => void imports.push(event));
    try {
      await sendMessages(windowed, [{ n: 1 }]);
      await sendMessages('imports', [{ n: 2 }]);
      await jest.advanceTimersByTimeAsync(windowMs / 2);
      const importsAtOnce = imports.length;
      await sendMessages(windowed, [{ n: 3 }, { n: 4 }]);
      const beforeTheWindowEnds = events.length;
      await localQueueIdle('imports');
      await jest.advanceTimersByTimeAsync(windowMs / 2);

      expect(importsAtOnce).toBe(1);
      expect(beforeTheWindowEnds).toBe(0);
      expect(events.map((event) => event.Records.map((record) => bodyOf(record).n))).toEqual([[1, 3, 4]]);
    } finally {
      unregisterImports();
    }
  });

  test('waiting for one queue does not wait for another', async () => {
    consumeWindowed();
    await sendMessages(windowed, [{ n: 1 }]);
    let windowedIdle = false;
    void localQueueIdle(windowed).then(() => (windowedIdle = true));

    await jest.advanceTimersByTimeAsync(1);
    await localQueueIdle('imports');
    const idleBefore = windowedIdle;
    await jest.advanceTimersByTimeAsync(windowMs);

    expect(idleBefore).toBe(false);
    expect(windowedIdle).toBe(true);
  });
});

describe('kept in a directory (the local stack keeps it under DATA_DIR)', () => {
  const directories: string[] = [];
  const newDirectory = () => {
    const directory = mkdtempSync(join(tmpdir(), 'local-queue-'));
    directories.push(directory);
    return directory;
  };

  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  test('messages accepted before a kill -9 are all delivered after the restart, those in flight with their receive count', async () => {
    // Prepare: a process of its own accepts 25 messages and is killed while its consumer holds the first batch.
    const directory = newDirectory();
    const child = spawn(join(repoRoot, 'node_modules/.bin/tsx'), ['test/support/local-queue-child.ts', directory, '25'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((done) => child.once('exit', done));
    await waitFor(() => output.includes('accepted') && (output.match(/^received /gm) ?? []).length === 10, 20_000, 'the first batch in the child');
    child.kill('SIGKILL');
    await exited;

    // Act: the queue starts again on the same directory.
    const events = consume(async () => undefined);
    configureLocalQueue({ directory });
    await localQueueIdle();

    // Assess
    const records = events.flatMap((event) => event.Records);
    expect(records.map(bodyOf).map((body) => body.n)).toEqual(Array.from({ length: 25 }, (_, n) => n));
    expect(records.map((record) => record.attributes.ApproximateReceiveCount)).toEqual([...Array(10).fill('2'), ...Array(15).fill('1')]);
  }, 30_000);

  test('a stop keeps the messages not yet delivered; each is delivered once across the two runs', async () => {
    const directory = newDirectory();
    configureLocalQueue({ directory, concurrency: 1 });
    const firstRun: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    consume(async (event) => {
      firstRun.push(...event.Records.map((record) => bodyOf(record).n));
      if (firstRun.length > 10) await held;
    });
    await sendMessages(queue, Array.from({ length: 30 }, (_, n) => ({ n })));
    await waitFor(() => firstRun.length === 20, 5_000, 'the second batch');
    // The second batch is still in flight when the stop gives up waiting for it.
    await stopLocalQueues(50);
    release();
    unregister?.();

    configureLocalQueue({ redeliveryDelayMs: 30, directory });
    const events = consume(async () => undefined);
    await localQueueIdle();

    expect(events.flatMap((event) => event.Records).map((record) => bodyOf(record).n)).toEqual(Array.from({ length: 20 }, (_, n) => n + 10));
  });

  test('what a stop\'s last step sends (the SES sink\'s last events) is kept for the next start, not delivered', async () => {
    const directory = newDirectory();
    configureLocalQueue({ directory });
    const firstRun: number[] = [];
    consume(async (event) => void firstRun.push(...event.Records.map((record) => bodyOf(record).n)));

    await stopLocalQueues(undefined, async () => {
      await sendMessages(queue, [{ n: 1 }, { n: 2 }]);
      // Past the tick in which a batch would be taken.
      await new Promise((resume) => setImmediate(resume));
    });
    unregister?.();
    const events = consume(async () => undefined);
    configureLocalQueue({ directory });
    await localQueueIdle();

    expect(firstRun).toEqual([]);
    expect(events.flatMap((event) => event.Records).map(bodyOf)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test('dead letters are kept too, and a message in flight at its last receive becomes one on restart', async () => {
    const directory = newDirectory();
    configureLocalQueue({ directory, maxReceiveCount: 2 });
    // n 1 fails every receive; n 3 fails its first and never finishes its second.
    consume(async (event) => {
      if (event.Records.some((record) => bodyOf(record).n === 3 && record.attributes.ApproximateReceiveCount === '2')) await new Promise(() => undefined);
      return { batchItemFailures: event.Records.filter((record) => bodyOf(record).n !== 2).map((record) => ({ itemIdentifier: record.messageId })) };
    });
    await sendMessages(queue, [{ n: 1 }, { n: 2 }]);
    await localQueueIdle();
    await sendMessages(queue, [{ n: 3 }]);
    await waitFor(() => logLines.length === 1, 5_000, 'the first dead letter');
    await sleep(100);
    await stopLocalQueues(50);
    unregister?.();

    const events = consume(async () => undefined);
    configureLocalQueue({ directory, maxReceiveCount: 2, log: (line) => logLines.push(line) });
    await localQueueIdle();

    expect(events).toEqual([]);
    expect(localDeadLetters(queue).map((letter) => [letter.body, letter.receiveCount])).toEqual([
      ['{"n":1}', 2],
      ['{"n":3}', 2],
    ]);
    expect(logLines[1]).toMatch(/still in flight when the queue stopped/);
  });

  test('a torn last line (a kill in the middle of an append) is skipped, and the journal holds only live messages after a start', async () => {
    const directory = newDirectory();
    configureLocalQueue({ directory });
    const events = consume(async () => undefined);
    await sendMessages(queue, Array.from({ length: 5 }, (_, n) => ({ n })));
    await localQueueIdle();
    await stopLocalQueues();
    const journal = join(directory, `${queue}.journal`);
    appendFileSync(journal, '{"op":"send","id":"torn","bo');

    configureLocalQueue({ directory, log: (line) => logLines.push(line) });
    await localQueueIdle();

    expect(events.flatMap((event) => event.Records)).toHaveLength(5);
    expect(readFileSync(journal, 'utf8')).toBe('');
    expect(logLines).toEqual([]);
  });
});
