// The stall watch: running sends indexed (sparse gsi1, a few write shards) by when they were last heard
// of. The watchdog Queries it for sends silent longer than its threshold, records each visit so a send
// is looked at again a threshold later, and takes a send off it when it ends. Progress (a page fanned
// out, a batch settled) is written to the dispatch item's `progress_at`, not to the watch: the watchdog
// reads it when the entry comes up, and moves the entry on to it when the send was heard of since.
import { currentTime, isoTimestamp } from '../time';
import { conditionHeld, deleteItem, query, unlessConditionFails, updateItem, type Item } from '../table/records';
import { transactWrite } from '../table/transactions';
import type { Key } from '../table/keys';
import {
  parseStallWatchSortKey,
  singleSendDispatchKey,
  singleSendStateKey,
  singleSendWatchKey,
  stallWatchPartition,
  stallWatchShard,
  stallWatchShards,
  stallWatchSortKey,
} from './keys';
import { failureAttribute, singleSendStatus, waitingAttribute, type SendFailure } from './record';
import { readSendState } from './state';

/** A send on the watch that has not been heard of since `heardAt`. */
export interface SilentSend {
  accountId: number;
  utr: string;
  /** The entry's sort key as read: a visit is recorded only if it is unchanged. */
  watchKey: string;
  heardAt: string;
  /** The item the entry is on: the send's watch item, or its dispatch item (a send whose dispatch began before the watch had items of its own). */
  item: Key;
}

/** The send's watch entry, heard of at `heardAt`, as its own item (a Put; the send's dispatch starts with it). */
export function watchEntry(accountId: number, utr: string, heardAt: Date): Item & Key {
  return {
    ...singleSendWatchKey(accountId, utr),
    entity: 'single-send-watch',
    gsi1pk: stallWatchPartition(stallWatchShard(utr)),
    gsi1sk: stallWatchSortKey(heardAt, accountId, utr),
  };
}

/** Sends last heard of before `before`, oldest first per shard, at most `limitPerShard` of each shard. */
export async function silentSends(before: Date, limitPerShard = 100): Promise<SilentSend[]> {
  const shards = await Promise.all(
    Array.from({ length: stallWatchShards }, async (_, shard) => {
      const result = await query({
        IndexName: 'gsi1',
        // `<time>#...` sorts before `<before>` exactly when the time is earlier.
        KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :before',
        ExpressionAttributeValues: { ':partition': stallWatchPartition(shard), ':before': before.toISOString() },
        ProjectionExpression: 'pk, sk, gsi1sk',
        Limit: limitPerShard,
      });
      return (result.Items ?? []).map((item) => {
        const watchKey = String(item.gsi1sk);
        const { heardAt, accountId, utr } = parseStallWatchSortKey(watchKey);
        return { accountId, utr, watchKey, heardAt, item: { pk: String(item.pk), sk: String(item.sk) } };
      });
    }),
  );
  return shards.flat();
}

const onDispatchItem = (send: SilentSend) => send.item.pk === singleSendDispatchKey(send.accountId, send.utr).pk;

/**
 * The send was heard of at `heardAt` (a page or a settled batch since its entry was last moved, or the
 * end of its A/B test's wait): the entry moves on to then, nothing else changes. False when it was
 * visited since it was read.
 */
export function moveWatched(send: SilentSend, heardAt: Date): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: send.item,
      UpdateExpression: 'SET gsi1sk = :heard',
      ConditionExpression: 'gsi1sk = :read',
      ExpressionAttributeValues: { ':heard': stallWatchSortKey(heardAt, send.accountId, send.utr), ':read': send.watchKey },
    }),
  );
}

/**
 * Move the send's watch entry to `now`, with `set` written to its dispatch item, unless the send
 * progressed since `progressAt` was read (its dispatch item's progress moved) or was visited since (then false).
 */
async function touchWatched(send: SilentSend, progressAt: string, now: Date, set: Record<string, unknown>): Promise<boolean> {
  const names = Object.keys(set);
  const assignments = names.map((name, i) => `#set${i} = :set${i}`).join(', ');
  const attributeNames = Object.fromEntries(names.map((name, i) => [`#set${i}`, name]));
  const values = Object.fromEntries(names.map((name, i) => [`:set${i}`, set[name]]));
  // A send started before progress was kept has none until its first page: its start time stood for it.
  const unmoved = '(progress_at = :progressAt OR attribute_not_exists(progress_at))';
  const heard = stallWatchSortKey(now, send.accountId, send.utr);
  const dispatchKey = singleSendDispatchKey(send.accountId, send.utr);
  if (onDispatchItem(send)) {
    return conditionHeld(
      updateItem({
        Key: dispatchKey,
        UpdateExpression: `SET gsi1sk = :heard, ${assignments}`,
        ConditionExpression: `gsi1sk = :read AND ${unmoved}`,
        ExpressionAttributeNames: attributeNames,
        ExpressionAttributeValues: { ':heard': heard, ':read': send.watchKey, ':progressAt': progressAt, ...values },
      }),
    );
  }
  return conditionHeld(
    transactWrite([
      { Update: { Key: send.item, UpdateExpression: 'SET gsi1sk = :heard', ConditionExpression: 'gsi1sk = :read', ExpressionAttributeValues: { ':heard': heard, ':read': send.watchKey } } },
      {
        Update: {
          Key: dispatchKey,
          UpdateExpression: `SET ${assignments}`,
          ConditionExpression: `attribute_exists(pk) AND ${unmoved}`,
          ExpressionAttributeNames: attributeNames,
          ExpressionAttributeValues: { ':progressAt': progressAt, ...values },
        },
      },
    ]),
  );
}

/**
 * Record the watchdog's visit: the entry moves to now (looked at again a threshold later) and the
 * resume count becomes `stallResumes`. False when the send progressed since `progressAt` or was visited since it was read.
 */
export function recordStallVisit(send: SilentSend, progressAt: string, stallResumes: number): Promise<boolean> {
  return touchWatched(send, progressAt, currentTime(), { stall_resumes: stallResumes });
}

/**
 * A wait that is not a stall (its account's SES tenant is paused): the send's silence starts again now,
 * so neither the stall threshold nor the limit on unconfirmed batches runs while SES holds its mail.
 * False when the send progressed since `progressAt` or was visited since it was read.
 */
export function restartSilence(send: SilentSend, progressAt: string): Promise<boolean> {
  const now = currentTime();
  return touchWatched(send, progressAt, now, { progress_at: now.toISOString(), stall_resumes: 0 });
}

/** Take a send off the watch (it ended, or it is gone), wherever its entry is. */
export async function unwatch(accountId: number, utr: string): Promise<void> {
  await Promise.all([
    deleteItem({ Key: singleSendWatchKey(accountId, utr) }),
    unlessConditionFails(
      updateItem({
        Key: singleSendDispatchKey(accountId, utr),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(gsi1pk)',
      }),
    ),
  ]);
}

/**
 * Put a running send back on the watch, heard of now, in an item of its own: a hold that took it off
 * (it waited for its sender, which only a person can end) is over. Nothing for a send already completed or gone.
 */
export async function rewatch(accountId: number, utr: string): Promise<void> {
  await unlessConditionFails(
    transactWrite([
      {
        Update: {
          Key: singleSendDispatchKey(accountId, utr),
          // An entry still on the dispatch item (kept there before) gives way to the item of its own.
          UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(completed_at)',
        },
      },
      { Put: { Item: watchEntry(accountId, utr, currentTime()) } },
    ]),
  );
}

/**
 * End a running send at status 4 with its failure, and take it off the watch, together. False when it
 * was no longer running (it completed, or was deleted, meanwhile).
 */
export async function failSingleSend(accountId: number, utr: string, failure: Omit<SendFailure, 'at'>): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  const now = currentTime();
  return conditionHeld(
    transactWrite([
      {
        Update: {
          Key: singleSendStateKey(accountId, utr),
          UpdateExpression: 'SET #status = :failed, #failure = :failure, updated_at = :now REMOVE #waiting',
          ConditionExpression: '#status = :running',
          ExpressionAttributeNames: { '#status': 'status', '#failure': failureAttribute, '#waiting': waitingAttribute },
          ExpressionAttributeValues: {
            ':failed': singleSendStatus.failed,
            ':running': singleSendStatus.running,
            ':failure': { ...failure, at: now.toISOString() },
            ':now': isoTimestamp(now),
          },
        },
      },
      {
        Update: {
          Key: singleSendDispatchKey(accountId, utr),
          UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Delete: { Key: singleSendWatchKey(accountId, utr) } },
    ]),
  );
}
