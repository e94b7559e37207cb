// The sending pipeline's view of a single send: reading it for dispatch and delivery, the status
// moves 1 -> 2 -> 3 on its state item (4 is stall-watch.ts's; the statistics counters are
// counters.ts's), and the dispatch progress item (cursor, fan-out and settlement counts) that lets a
// large send resume and tells the last settling step it is the last.
// Each page and settled batch also moves the send's entry in the stall watch (stall-watch.ts).
import { currentTime, isoTimestamp, sqlTimestamp } from '../time';
import { deliveryBatchKey } from '../ledger/keys';
import { singleSendDispatchKey, singleSendKey, singleSendStateKey, stallWatchPartition, stallWatchShard, stallWatchSortKey } from './keys';
import { type Key } from '../table/keys';
import { conditionHeld, getItem, updateItem } from '../table/records';
import { dispatchAtAttribute, singleSendStatus, waitingAttribute, toSingleSend, type SingleSend } from './record';
import { counterShardCreations, counterShardUpdate, countersOf, ensureCounterShard, readCounterShards, type SingleSendCounter } from './counters';
import { readSendState, versionAttribute, withState } from './state';
import { transactUnlessRefused, type TransactionAction } from '../table/transactions';

/** A single send as the pipeline reads it, with the time its scheduler job is due (absent for a draft). */
export interface SendingSingleSend extends SingleSend {
  dispatchAt: string | undefined;
  /** The version of its content (raised by each change of it): a cached copy of the same version is current. */
  version: number;
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
  /** Recipients whose outcome is unknown: a call to SES, or the run making it, ended without an answer. Never mailed again. */
  uncertain: number;
  completedAt: string | null;
  /** ISO 8601: the last page fanned out or batch settled (the start, before either). */
  progressAt: string;
  /** Times the watchdog resumed it since it last progressed. */
  stallResumes: number;
}

/** Dispatch items outlive their send for a while (statistics questions), then TTL removes them. */
const retentionSeconds = 180 * 24 * 3600;

function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
}

/** The attributes a page or a settled batch sets: the send progressed now (the watch entry moves, stall count resets). */
function progressedNow(accountId: number, utr: string): { expression: string; values: Record<string, unknown> } {
  const now = currentTime();
  return {
    // Only the sort key: a send taken off the watch (completed, failed) has no gsi1pk and stays off it.
    expression: 'progress_at = :progressAt, gsi1sk = :heard, stall_resumes = :noResumes',
    values: { ':progressAt': now.toISOString(), ':heard': stallWatchSortKey(now, accountId, utr), ':noResumes': 0 },
  };
}

/**
 * The send with its design, strongly consistent (a status or deletion just written must be seen):
 * the record, its state item and its counters; undefined when gone. The one read of the design: a
 * caller that needs it again keeps it by `version`, and otherwise reads the state alone (state.ts).
 */
export async function getSendingSingleSend(accountId: number, utr: string): Promise<SendingSingleSend | undefined> {
  const [item, state, shards] = await Promise.all([
    getItem(singleSendKey(accountId, utr), { consistent: true }),
    readSendState(accountId, utr),
    readCounterShards(accountId, [utr], true),
  ]);
  if (!item || !state) return undefined;
  const merged = withState(item, state);
  const dispatchAt = merged[dispatchAtAttribute];
  return {
    ...toSingleSend({ ...merged, ...countersOf(item, state, shards.get(utr) ?? []) }),
    dispatchAt: typeof dispatchAt === 'string' ? dispatchAt : undefined,
    version: Number(state[versionAttribute] ?? 0),
  };
}

/** Whether the send still exists (a deleted send stops delivering). */
export async function singleSendExists(accountId: number, utr: string): Promise<boolean> {
  return (await readSendState(accountId, utr)) !== undefined;
}

/**
 * Move a ready send to running and open its dispatch progress and its counters, together; false when
 * it was not ready. Only small items: the record with the design is not written.
 */
export async function startDispatch(accountId: number, utr: string): Promise<boolean> {
  // A send stored before the state had its own item adopts one first.
  if (!(await readSendState(accountId, utr))) return false;
  const outcome = await transactUnlessRefused([
    {
      Update: {
        Key: singleSendStateKey(accountId, utr),
        UpdateExpression: 'SET #status = :running, updated_at = :now',
        ConditionExpression: '#status = :ready',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': singleSendStatus.running, ':ready': singleSendStatus.ready, ':now': isoTimestamp() },
      },
    },
    ...counterShardCreations(accountId, utr),
    {
      Put: {
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
          uncertain: 0,
          started_at: isoTimestamp(),
          progress_at: currentTime().toISOString(),
          stall_resumes: 0,
          // On the stall watch until it completes or fails.
          gsi1pk: stallWatchPartition(stallWatchShard(utr)),
          gsi1sk: stallWatchSortKey(currentTime(), accountId, utr),
          expires_at: expiresAt(),
        },
      },
    },
  ]);
  return outcome.ok;
}

/** The dispatch progress of a send; undefined before its dispatch started. */
export async function getDispatchState(accountId: number, utr: string): Promise<DispatchState | undefined> {
  const item = await getItem(singleSendDispatchKey(accountId, utr), { consistent: true });
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
    uncertain: Number(item.uncertain ?? 0),
    completedAt: typeof item.completed_at === 'string' ? item.completed_at : null,
    progressAt: String(item.progress_at ?? item.started_at ?? ''),
    stallResumes: Number(item.stall_resumes ?? 0),
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
  const progressed = progressedNow(accountId, utr);
  return conditionHeld(
    updateItem({
      Key: singleSendDispatchKey(accountId, utr),
      UpdateExpression: `SET #page = :next, #cursor = :cursor, #done = :done, ${progressed.expression} ADD fanned_batches :batches, fanned_recipients :recipients`,
      ConditionExpression: '#page = :expected',
      ExpressionAttributeNames: { '#page': 'page', '#cursor': 'cursor', '#done': 'done' },
      ExpressionAttributeValues: {
        ...progressed.values,
        ':next': page.expectedPage + 1,
        ':expected': page.expectedPage,
        ':cursor': page.cursor,
        ':done': page.done,
        ':batches': page.batches,
        ':recipients': page.recipients,
      },
    }),
  );
}

export interface BatchOutcome {
  sent: number;
  skipped: number;
  failed: number;
  uncertain?: number;
}

/**
 * Count one delivery batch as settled, once: a marker per batch id makes a redelivered batch (or a
 * page a crashed dispatcher fanned out twice) count nothing the second time. `statistics` are added
 * to a shard of the send's counters in the same transaction (small items only) (its mails as `triggered`), so a batch's mails
 * are counted exactly once whatever run of it settles, and a run that dies before settling loses
 * nothing. False when it was already counted, or the dispatch or the send is gone.
 */
export async function settleDeliveryBatch(
  accountId: number,
  utr: string,
  ref: string,
  batchId: string,
  outcome: BatchOutcome,
  statistics: Partial<Record<SingleSendCounter, number>> = {},
): Promise<boolean> {
  const marker: Key = deliveryBatchKey(accountId, ref, batchId);
  const progressed = progressedNow(accountId, utr);
  const uncertain = outcome.uncertain ?? 0;
  const actions: TransactionAction[] = [
    {
      Put: {
        Item: { ...marker, entity: 'delivery-batch', ...outcome, uncertain, settled_at: isoTimestamp(), expires_at: expiresAt() },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        Key: singleSendDispatchKey(accountId, utr),
        UpdateExpression: `SET ${progressed.expression} ADD settled_batches :one, sent :sent, skipped :skipped, failed :failed, uncertain :uncertain`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ...progressed.values,
          ':one': 1,
          ':sent': outcome.sent,
          ':skipped': outcome.skipped,
          ':failed': outcome.failed,
          ':uncertain': uncertain,
        },
      },
    },
  ];
  const counting = counterShardUpdate(accountId, utr, statistics);
  if (counting) actions.push(counting);
  for (;;) {
    const result = await transactUnlessRefused(actions);
    if (result.ok) return true;
    // Only the counters' shard was missing (a send started before its counters were sharded): made, and settled again.
    const onlyShard = counting !== undefined && result.codes.every((code, index) => (index === actions.length - 1 ? code === 'ConditionalCheckFailed' : code === 'None'));
    if (!onlyShard || !(await ensureCounterShard(accountId, utr, counting.Update.Key as Key))) return false;
  }
}

/**
 * Complete the send when its dispatch is done and every fanned-out batch has settled: status 3 and
 * `sent_at`, in one transaction with a completion mark, so exactly one caller (the dispatcher or
 * whichever delivery settles last) completes it. The totals when this call completed it, else undefined.
 */
export async function completeIfSettled(accountId: number, utr: string): Promise<DispatchState | undefined> {
  if (!(await readSendState(accountId, utr))) return undefined;
  const now = currentTime();
  const result = await transactUnlessRefused([
    {
      Update: {
        Key: singleSendDispatchKey(accountId, utr),
        // Off the stall watch: a completed send has nothing left to watch.
        UpdateExpression: 'SET completed_at = :now REMOVE gsi1pk, gsi1sk',
        ConditionExpression: '#done = :true AND settled_batches >= fanned_batches AND attribute_not_exists(completed_at)',
        ExpressionAttributeNames: { '#done': 'done' },
        ExpressionAttributeValues: { ':now': isoTimestamp(now), ':true': true },
      },
    },
    {
      Update: {
        Key: singleSendStateKey(accountId, utr),
        UpdateExpression: 'SET #status = :completed, sent_at = :sentAt, updated_at = :now REMOVE #waiting',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#status': 'status', '#waiting': waitingAttribute },
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
