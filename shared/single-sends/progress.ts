// The sending pipeline's view of a single send: reading it for dispatch and delivery, the status
// moves 1 -> 2 -> 3, the statistics counters, and the dispatch progress item (cursor, fan-out and
// settlement counts) that lets a large send resume and tells the last settling step it is the last.
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { currentTime, isoTimestamp, sqlTimestamp } from '../time';
import type { TransactionItem } from '../table/bulk-delete';
import { db, tableName } from '../table/client';
import { deliveryBatchKey } from '../sending/keys';
import { singleSendDispatchKey, singleSendKey } from './keys';
import { type Key } from '../table/keys';
import { isConditionFailure } from '../table/records';
import { dispatchAtAttribute, singleSendStatus, toSingleSend, type SingleSend, type SingleSendStatistics } from './record';
import { cancellationCodes } from '../table/transactions';

export type SingleSendCounter = keyof SingleSendStatistics;

/** A single send as the pipeline reads it, with the time its scheduler job is due (absent for a draft). */
export interface SendingSingleSend extends SingleSend {
  dispatchAt: string | undefined;
}

/** Where the dispatcher stands: which audience entry, and the last key it fanned out within it. */
export interface DispatchCursor {
  /** Index into the send's ordered audience entries. */
  source: number;
  /** The last contact id (contact types) or lower-cased address (segments) already fanned out; null at the start. */
  after: number | string | null;
}

export interface DispatchState {
  /** Pages fanned out so far; also the version the next cursor write is conditioned on. */
  page: number;
  cursor: DispatchCursor;
  done: boolean;
  fannedBatches: number;
  fannedRecipients: number;
  settledBatches: number;
  /** Recipients settled by outcome: mailed, skipped (suppressed, or already mailed through another entry), failed for good. */
  sent: number;
  skipped: number;
  failed: number;
  completedAt: string | null;
}

/** Dispatch items outlive their send for a while (statistics questions), then TTL removes them. */
const retentionSeconds = 180 * 24 * 3600;

function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
}

const maxConflictRetries = 8;

/** Run a transaction; a refusal by a condition comes back as the per-action codes. */
async function transact(actions: TransactionItem[]): Promise<{ ok: true } | { ok: false; codes: string[] }> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: actions }));
      return { ok: true };
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (codes.includes('ConditionalCheckFailed')) return { ok: false, codes };
      // Deliveries settling into one dispatch item meet each other's transactions: not a refusal, retry.
      if (attempt >= maxConflictRetries) throw error;
      await new Promise((resume) => setTimeout(resume, Math.min(500, 10 * 2 ** attempt + Math.random() * 20)));
    }
  }
}

/** The send, strongly consistent (a status or deletion just written must be seen); undefined when gone. */
export async function getSendingSingleSend(accountId: number, utr: string): Promise<SendingSingleSend | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: singleSendKey(accountId, utr), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const dispatchAt = result.Item[dispatchAtAttribute];
  return { ...toSingleSend(result.Item), dispatchAt: typeof dispatchAt === 'string' ? dispatchAt : undefined };
}

/** Whether the send still exists (a deleted send stops delivering). */
export async function singleSendExists(accountId: number, utr: string): Promise<boolean> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: singleSendKey(accountId, utr), ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return result.Item !== undefined;
}

/** Move a ready send to running and open its dispatch progress, together; false when it was not ready. */
export async function startDispatch(accountId: number, utr: string): Promise<boolean> {
  const outcome = await transact([
    {
      Update: {
        TableName: tableName(),
        Key: singleSendKey(accountId, utr),
        UpdateExpression: 'SET #status = :running, updated_at = :now',
        ConditionExpression: '#status = :ready',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': singleSendStatus.running, ':ready': singleSendStatus.ready, ':now': isoTimestamp() },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...singleSendDispatchKey(accountId, utr),
          entity: 'single-send-dispatch',
          page: 0,
          cursor: { source: 0, after: null },
          done: false,
          fanned_batches: 0,
          fanned_recipients: 0,
          settled_batches: 0,
          sent: 0,
          skipped: 0,
          failed: 0,
          started_at: isoTimestamp(),
          expires_at: expiresAt(),
        },
      },
    },
  ]);
  return outcome.ok;
}

/** The dispatch progress of a send; undefined before its dispatch started. */
export async function getDispatchState(accountId: number, utr: string): Promise<DispatchState | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: singleSendDispatchKey(accountId, utr), ConsistentRead: true }));
  const item = result.Item;
  if (!item) return undefined;
  const cursor = item.cursor as { source?: unknown; after?: unknown } | undefined;
  const after = cursor?.after;
  return {
    page: Number(item.page ?? 0),
    cursor: { source: Number(cursor?.source ?? 0), after: typeof after === 'number' || typeof after === 'string' ? after : null },
    done: item.done === true,
    fannedBatches: Number(item.fanned_batches ?? 0),
    fannedRecipients: Number(item.fanned_recipients ?? 0),
    settledBatches: Number(item.settled_batches ?? 0),
    sent: Number(item.sent ?? 0),
    skipped: Number(item.skipped ?? 0),
    failed: Number(item.failed ?? 0),
    completedAt: typeof item.completed_at === 'string' ? item.completed_at : null,
  };
}

/**
 * Record one fanned-out page: the new cursor and what was sent to the queue, conditioned on the page
 * number the dispatcher read, so two dispatchers racing on one send cannot both advance it. False
 * when another run already recorded this page (the caller stops).
 */
export async function saveDispatchPage(
  accountId: number,
  utr: string,
  page: { expectedPage: number; cursor: DispatchCursor; batches: number; recipients: number; done: boolean },
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: singleSendDispatchKey(accountId, utr),
        UpdateExpression: 'SET #page = :next, #cursor = :cursor, #done = :done ADD fanned_batches :batches, fanned_recipients :recipients',
        ConditionExpression: '#page = :expected',
        ExpressionAttributeNames: { '#page': 'page', '#cursor': 'cursor', '#done': 'done' },
        ExpressionAttributeValues: {
          ':next': page.expectedPage + 1,
          ':expected': page.expectedPage,
          ':cursor': page.cursor,
          ':done': page.done,
          ':batches': page.batches,
          ':recipients': page.recipients,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export interface BatchOutcome {
  sent: number;
  skipped: number;
  failed: number;
}

/**
 * Count one delivery batch as settled, once: a marker per batch id makes a redelivered batch (or a
 * page a crashed dispatcher fanned out twice) count nothing the second time. False when it was
 * already counted or the dispatch is gone.
 */
export async function settleDeliveryBatch(accountId: number, utr: string, ref: string, batchId: string, outcome: BatchOutcome): Promise<boolean> {
  const marker: Key = deliveryBatchKey(accountId, ref, batchId);
  const result = await transact([
    {
      Put: {
        TableName: tableName(),
        Item: { ...marker, entity: 'delivery-batch', ...outcome, settled_at: isoTimestamp(), expires_at: expiresAt() },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: singleSendDispatchKey(accountId, utr),
        UpdateExpression: 'ADD settled_batches :one, sent :sent, skipped :skipped, failed :failed',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1, ':sent': outcome.sent, ':skipped': outcome.skipped, ':failed': outcome.failed },
      },
    },
  ]);
  return result.ok;
}

/**
 * Complete the send when its dispatch is done and every fanned-out batch has settled: status 3 and
 * `sent_at`, in one transaction with a completion mark, so exactly one caller (the dispatcher or
 * whichever delivery settles last) completes it. The totals when this call completed it, else undefined.
 */
export async function completeIfSettled(accountId: number, utr: string): Promise<DispatchState | undefined> {
  const now = currentTime();
  const result = await transact([
    {
      Update: {
        TableName: tableName(),
        Key: singleSendDispatchKey(accountId, utr),
        UpdateExpression: 'SET completed_at = :now',
        ConditionExpression: '#done = :true AND settled_batches >= fanned_batches AND attribute_not_exists(completed_at)',
        ExpressionAttributeNames: { '#done': 'done' },
        ExpressionAttributeValues: { ':now': isoTimestamp(now), ':true': true },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: singleSendKey(accountId, utr),
        UpdateExpression: 'SET #status = :completed, sent_at = :sentAt, updated_at = :now',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':completed': singleSendStatus.completed,
          ':running': singleSendStatus.running,
          ':sentAt': sqlTimestamp(now),
          ':now': isoTimestamp(now),
        },
      },
    },
  ]);
  if (!result.ok) return undefined;
  return getDispatchState(accountId, utr);
}

/** Add to the send's statistics atomically; false when the send no longer exists (nothing is recreated). */
export async function addSingleSendCounts(accountId: number, utr: string, counts: Partial<Record<SingleSendCounter, number>>): Promise<boolean> {
  const entries = Object.entries(counts).filter(([, by]) => by !== undefined && by !== 0);
  if (entries.length === 0) return true;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: singleSendKey(accountId, utr),
        UpdateExpression: `ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
        // Counting on a deleted send would recreate a ghost item.
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, by], i) => [`:c${i}`, by])),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
