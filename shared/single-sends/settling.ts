// Settling a single send's delivery batches: each counted once, with its statistics, and the send
// completed (status 3) by whichever caller settles last.
import { currentTime, isoTimestamp, sqlTimestamp } from '../time';
import { deliveryBatchKey } from '../ledger/keys';
import { singleSendDispatchKey, singleSendStateKey, singleSendWatchKey } from './keys';
import type { Key } from '../table/keys';
import { singleSendStatus, waitingAttribute } from './record';
import { counterShardUpdate, ensureCounterShard, type CountChanges } from './counters';
import { readSendState } from './state';
import { transactUnlessRefused, type TransactionAction } from '../table/transactions';
import { expiresAt, getDispatchState, progressedNow } from './progress';
import type { DispatchState } from './dispatch-state';

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
  statistics: CountChanges = {},
): Promise<boolean> {
  const marker: Key = deliveryBatchKey(accountId, ref, batchId);
  const progressed = progressedNow();
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
        // Off the stall watch (an entry kept here from before too): a completed send has nothing left to watch.
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
    { Delete: { Key: singleSendWatchKey(accountId, utr) } },
  ]);
  if (!result.ok) return undefined;
  return getDispatchState(accountId, utr);
}
