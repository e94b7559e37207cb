// The batch primitives against a fake send: chunk sizes, unprocessed keys and writes sent again until
// none are left, the attempt limit, the options a call site passes, and the backoff's bounds.
import type { BatchGetCommand, BatchGetCommandOutput, BatchWriteCommand, BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import {
  batchGetAll,
  batchGetLimit,
  batchWriteAll,
  batchWriteLimit,
  defaultRetryPolicy,
  deleteRequest,
  putRequest,
  retryDelay,
  UnprocessedBatchError,
  type RetryPolicy,
  type WriteRequest,
} from '../../shared/table/batch';
import type { Key } from '../../shared/table/keys';

const table = 'test-table';
const noWait: RetryPolicy = { maxAttempts: 4, baseMs: 0, capMs: 0 };

function keys(count: number): Key[] {
  return Array.from({ length: count }, (_, i) => ({ pk: 'P', sk: String(i).padStart(4, '0') }));
}

function requestedKeys(command: BatchGetCommand): Key[] {
  return command.input.RequestItems?.[table]?.Keys as Key[];
}

function requestedWrites(command: BatchWriteCommand): WriteRequest[] {
  return command.input.RequestItems?.[table] ?? [];
}

/** A fake BatchGetItem: every key is found (an item with a copy of the key), except what `unprocessed` leaves over. */
function fakeGet(unprocessed: (keys: Key[], call: number) => Key[] = () => []) {
  const calls: BatchGetCommand[] = [];
  const send = async (command: BatchGetCommand): Promise<BatchGetCommandOutput> => {
    calls.push(command);
    const asked = requestedKeys(command);
    const left = unprocessed(asked, calls.length);
    const served = asked.filter((key) => !left.includes(key));
    return {
      $metadata: {},
      Responses: { [table]: served.map((key) => ({ ...key, value: key.sk })) },
      ...(left.length > 0 ? { UnprocessedKeys: { [table]: { Keys: left } } } : {}),
    };
  };
  return { calls, send };
}

function fakeWrite(unprocessed: (writes: WriteRequest[], call: number) => WriteRequest[] = () => []) {
  const calls: BatchWriteCommand[] = [];
  const applied: WriteRequest[] = [];
  const send = async (command: BatchWriteCommand): Promise<BatchWriteCommandOutput> => {
    calls.push(command);
    const asked = requestedWrites(command);
    const left = unprocessed(asked, calls.length);
    applied.push(...asked.filter((write) => !left.includes(write)));
    return { $metadata: {}, ...(left.length > 0 ? { UnprocessedItems: { [table]: left } } : {}) };
  };
  return { calls, applied, send };
}

describe('batchGetAll', () => {
  it('asks for at most 100 keys per BatchGetItem and returns every item found', async () => {
    const fake = fakeGet();
    const items = await batchGetAll(keys(250), { send: fake.send, table });
    expect(batchGetLimit).toBe(100);
    expect(fake.calls.map((command) => requestedKeys(command).length)).toEqual([100, 100, 50]);
    expect(items.map((item) => item.sk).sort()).toEqual(keys(250).map((key) => key.sk));
  });

  it('sends nothing for no keys', async () => {
    const fake = fakeGet();
    expect(await batchGetAll([], { send: fake.send, table })).toEqual([]);
    expect(fake.calls).toHaveLength(0);
  });

  it('sends the unprocessed keys again, and only them, until none are left', async () => {
    // The first three answers each leave the second half of what was asked.
    const fake = fakeGet((asked, call) => (call <= 3 ? asked.slice(Math.ceil(asked.length / 2)) : []));
    const items = await batchGetAll(keys(40), { send: fake.send, table, retry: noWait });
    expect(fake.calls.map((command) => requestedKeys(command).length)).toEqual([40, 20, 10, 5]);
    expect(requestedKeys(fake.calls[1] as BatchGetCommand)).toEqual(keys(40).slice(20));
    expect(items.map((item) => item.sk).sort()).toEqual(keys(40).map((key) => key.sk));
  });

  it('gives up with UnprocessedBatchError after the attempt limit', async () => {
    const fake = fakeGet((asked) => asked.slice(1));
    const reading = batchGetAll(keys(10), { send: fake.send, table, retry: noWait });
    await expect(reading).rejects.toThrow(UnprocessedBatchError);
    await expect(reading).rejects.toThrow('BatchGetItem left 6 keys unprocessed after 4 attempts');
    expect(fake.calls).toHaveLength(noWait.maxAttempts);
  });

  it('passes a consistent read and a projection through to every request', async () => {
    const fake = fakeGet((asked, call) => (call === 1 ? asked.slice(0, 1) : []));
    await batchGetAll(keys(3), { send: fake.send, table, retry: noWait, consistentRead: true, projection: { expression: '#email', names: { '#email': 'email_address' } } });
    expect(fake.calls).toHaveLength(2);
    for (const command of fake.calls) {
      expect(command.input.RequestItems?.[table]).toMatchObject({ ConsistentRead: true, ProjectionExpression: '#email', ExpressionAttributeNames: { '#email': 'email_address' } });
    }
  });

  it('leaves consistency and projection out unless asked', async () => {
    const fake = fakeGet();
    await batchGetAll(keys(1), { send: fake.send, table });
    expect(Object.keys(fake.calls[0]?.input.RequestItems?.[table] ?? {})).toEqual(['Keys']);
  });

  it('runs one chunk at a time by default and at most `concurrency` at once when given', async () => {
    for (const [concurrency, expected] of [[undefined, 1], [3, 3]] as const) {
      let inFlight = 0;
      let most = 0;
      const send = async (command: BatchGetCommand): Promise<BatchGetCommandOutput> => {
        most = Math.max(most, ++inFlight);
        await new Promise((resume) => setTimeout(resume, 5));
        inFlight--;
        return { $metadata: {}, Responses: { [table]: requestedKeys(command) } };
      };
      const items = await batchGetAll(keys(1000), { send, table, concurrency });
      expect(items).toHaveLength(1000);
      expect(most).toBe(expected);
    }
  });
});

describe('batchWriteAll', () => {
  const writes = (count: number) => keys(count).map((key, i) => (i % 2 === 0 ? putRequest({ ...key, n: i }) : deleteRequest(key)));

  it('sends at most 25 writes per BatchWriteItem, all of them once', async () => {
    const fake = fakeWrite();
    const all = writes(60);
    await batchWriteAll(all, { send: fake.send, table });
    expect(batchWriteLimit).toBe(25);
    expect(fake.calls.map((command) => requestedWrites(command).length)).toEqual([25, 25, 10]);
    expect(fake.applied).toEqual(all);
  });

  it('sends the unprocessed writes again, and only them, until none are left', async () => {
    const fake = fakeWrite((asked, call) => (call <= 2 ? asked.slice(0, 3) : []));
    const all = writes(20);
    await batchWriteAll(all, { send: fake.send, table, retry: noWait });
    expect(fake.calls.map((command) => requestedWrites(command).length)).toEqual([20, 3, 3]);
    expect(requestedWrites(fake.calls[2] as BatchWriteCommand)).toEqual(all.slice(0, 3));
    expect([...fake.applied].sort((a, b) => all.indexOf(a) - all.indexOf(b))).toEqual(all);
  });

  it('gives up with UnprocessedBatchError after the attempt limit', async () => {
    const fake = fakeWrite((asked) => asked);
    await expect(batchWriteAll(writes(5), { send: fake.send, table, retry: noWait })).rejects.toThrow(
      new UnprocessedBatchError('BatchWriteItem', 5, noWait.maxAttempts),
    );
    expect(fake.calls).toHaveLength(noWait.maxAttempts);
  });

  it('gives up under the default policy too, having waited a bounded time', async () => {
    jest.useFakeTimers();
    try {
      const fake = fakeWrite((asked) => asked);
      const writing = batchWriteAll(writes(1), { send: fake.send, table });
      const outcome = expect(writing).rejects.toThrow(UnprocessedBatchError);
      await jest.runAllTimersAsync();
      await outcome;
      expect(fake.calls).toHaveLength(defaultRetryPolicy.maxAttempts);
    } finally {
      jest.useRealTimers();
    }
  });

  it('builds put and delete requests (a delete keeps only the key)', () => {
    expect(putRequest({ pk: 'P', sk: 'S', a: 1 })).toEqual({ PutRequest: { Item: { pk: 'P', sk: 'S', a: 1 } } });
    expect(deleteRequest({ pk: 'P', sk: 'S', a: 1 })).toEqual({ DeleteRequest: { Key: { pk: 'P', sk: 'S' } } });
  });
});

describe('retryDelay', () => {
  it('is full jitter under an exponential ceiling', () => {
    const policy: RetryPolicy = { maxAttempts: 10, baseMs: 25, capMs: 2000 };
    expect(retryDelay(1, policy, () => 0)).toBe(0);
    expect(retryDelay(1, policy, () => 0.5)).toBe(25);
    expect(retryDelay(3, policy, () => 0.5)).toBe(100);
    expect(retryDelay(3, policy, () => 0.999)).toBe(199);
  });

  it('never exceeds the cap', () => {
    const policy: RetryPolicy = { maxAttempts: 10, baseMs: 25, capMs: 2000 };
    expect(retryDelay(30, policy, () => 0.999)).toBe(1998);
    for (let retry = 1; retry < 40; retry++) expect(retryDelay(retry, policy)).toBeLessThan(2000);
  });

  it('defaults to a bounded number of attempts and a cap', () => {
    expect(Number.isFinite(defaultRetryPolicy.maxAttempts)).toBe(true);
    expect(defaultRetryPolicy.maxAttempts).toBeGreaterThan(1);
    expect(defaultRetryPolicy.capMs).toBeGreaterThan(0);
  });
});
