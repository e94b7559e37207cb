// BatchGetItem and BatchWriteItem over any number of keys or writes: chunked to DynamoDB's limits
// (100 keys, 25 writes per request) and retrying what DynamoDB leaves unprocessed (throttling, the
// 16 MB response limit) with one backoff, a bounded number of times. Every batch access goes here.
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { chunked, inParallel } from './concurrency';
import type { Key } from './keys';

type Item = Record<string, unknown>;

/** DynamoDB's limits: keys per BatchGetItem, writes per BatchWriteItem. */
export const batchGetLimit = 100;
export const batchWriteLimit = 25;

/** One put or delete of a BatchWriteItem. */
export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** How unprocessed keys and writes are retried. */
export interface RetryPolicy {
  /** Requests per chunk at most, the first one included; what is still unprocessed then is an error. */
  maxAttempts: number;
  /** Before retry n (1, 2, ...) the wait is uniform in [0, min(capMs, baseMs * 2^n)): full-jitter exponential backoff. */
  baseMs: number;
  capMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 10, baseMs: 25, capMs: 2000 };

/** The wait before retry `retry` (1 for the first retry): full jitter under a capped exponential ceiling. */
export function retryDelay(retry: number, policy: RetryPolicy = defaultRetryPolicy, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(policy.capMs, policy.baseMs * 2 ** retry));
}

/** DynamoDB still left part of a chunk unprocessed after the policy's last attempt. */
export class UnprocessedBatchError extends Error {
  constructor(
    readonly operation: 'BatchGetItem' | 'BatchWriteItem',
    readonly unprocessed: number,
    readonly attempts: number,
  ) {
    super(`${operation} left ${unprocessed} ${operation === 'BatchGetItem' ? 'keys' : 'writes'} unprocessed after ${attempts} attempts`);
    this.name = 'UnprocessedBatchError';
  }
}

interface BatchOptions<Command, Output> {
  /** Chunks in flight at once; 1 (one after another) unless given. */
  concurrency?: number;
  retry?: RetryPolicy;
  /** The client's send; `db()` unless given (tests pass a fake). */
  send?: (command: Command) => Promise<Output>;
  /** The table; the configured one unless given. */
  table?: string;
}

export interface BatchGetOptions extends BatchOptions<BatchGetCommand, BatchGetCommandOutput> {
  /** Strongly consistent reads. */
  consistentRead?: boolean;
  /** Read only these attributes: a projection expression and the names it uses. */
  projection?: { expression: string; names?: Record<string, string> };
}

export type BatchWriteOptions = BatchOptions<BatchWriteCommand, BatchWriteCommandOutput>;

function pause(ms: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, ms));
}

/**
 * Send `pending` until nothing is left unprocessed: `request` sends one batch and answers what
 * DynamoDB left over. Throws UnprocessedBatchError when something is still left after the last attempt.
 */
async function untilProcessed<T>(
  operation: UnprocessedBatchError['operation'],
  pending: T[],
  policy: RetryPolicy,
  request: (pending: T[]) => Promise<T[]>,
): Promise<void> {
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > policy.maxAttempts) throw new UnprocessedBatchError(operation, pending.length, policy.maxAttempts);
    if (attempt > 1) await pause(retryDelay(attempt - 1, policy));
    pending = await request(pending);
  }
}

/**
 * The items that exist at these keys (missing ones are absent, order not kept), 100 keys per
 * BatchGetItem, unprocessed keys retried. Keys must be distinct: BatchGetItem refuses duplicates.
 */
export async function batchGetAll(keys: readonly Key[], options: BatchGetOptions = {}): Promise<Item[]> {
  const send = options.send ?? ((command: BatchGetCommand) => db().send(command));
  const table = options.table ?? tableName();
  const found: Item[] = [];
  await inParallel(chunked(keys, batchGetLimit), options.concurrency ?? 1, (chunk) =>
    untilProcessed('BatchGetItem', chunk, options.retry ?? defaultRetryPolicy, async (pending) => {
      const result = await send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(options.consistentRead ? { ConsistentRead: true } : {}),
              ...(options.projection
                ? { ProjectionExpression: options.projection.expression, ...(options.projection.names ? { ExpressionAttributeNames: options.projection.names } : {}) }
                : {}),
            },
          },
        }),
      );
      found.push(...(result.Responses?.[table] ?? []));
      return (result.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
    }),
  );
  return found;
}

/** Apply every put and delete, 25 per BatchWriteItem, unprocessed writes retried. */
export async function batchWriteAll(requests: readonly WriteRequest[], options: BatchWriteOptions = {}): Promise<void> {
  const send = options.send ?? ((command: BatchWriteCommand) => db().send(command));
  const table = options.table ?? tableName();
  await inParallel(chunked(requests, batchWriteLimit), options.concurrency ?? 1, (chunk) =>
    untilProcessed('BatchWriteItem', chunk, options.retry ?? defaultRetryPolicy, async (pending) => {
      const result = await send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      return (result.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    }),
  );
}

/** A put of `item` for batchWriteAll. */
export function putRequest(item: Item): WriteRequest {
  return { PutRequest: { Item: item } };
}

/** A delete of the item at `key` (or of the item itself: only its pk and sk are used) for batchWriteAll. */
export function deleteRequest(key: Key | Item): WriteRequest {
  return { DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } };
}
