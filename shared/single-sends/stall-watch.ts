// The stall watch: running sends indexed (sparse gsi1, a few write shards) by when they were last heard
// of. The watchdog Queries it for sends silent longer than its threshold, records each visit so a send
// is looked at again a threshold later, and takes a send off it when it ends.
import { currentTime, isoTimestamp } from '../time';
import { conditionHeld, query, unlessConditionFails, updateItem } from '../table/records';
import { transactWrite } from '../table/transactions';
import {
  parseStallWatchSortKey,
  singleSendDispatchKey,
  singleSendStateKey,
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
        ProjectionExpression: 'gsi1sk',
        Limit: limitPerShard,
      });
      return (result.Items ?? []).map((item) => {
        const watchKey = String(item.gsi1sk);
        const { heardAt, accountId, utr } = parseStallWatchSortKey(watchKey);
        return { accountId, utr, watchKey, heardAt };
      });
    }),
  );
  return shards.flat();
}

/**
 * Move the send's watch entry to `now`, with `set` written beside it, unless the send progressed or was
 * visited since it was read (then false).
 */
async function touchWatched(send: SilentSend, now: Date, set: Record<string, unknown>): Promise<boolean> {
  const names = Object.keys(set);
  return conditionHeld(
    updateItem({
      Key: singleSendDispatchKey(send.accountId, send.utr),
      UpdateExpression: `SET gsi1sk = :heard${names.map((name, i) => `, #set${i} = :set${i}`).join('')}`,
      ConditionExpression: 'gsi1sk = :read',
      ExpressionAttributeNames: names.length ? Object.fromEntries(names.map((name, i) => [`#set${i}`, name])) : undefined,
      ExpressionAttributeValues: {
        ':heard': stallWatchSortKey(now, send.accountId, send.utr),
        ':read': send.watchKey,
        ...Object.fromEntries(names.map((name, i) => [`:set${i}`, set[name]])),
      },
    }),
  );
}

/**
 * Record the watchdog's visit: the entry moves to now (looked at again a threshold later) and the
 * resume count becomes `stallResumes`. False when the send progressed or was visited since it was read.
 */
export function recordStallVisit(send: SilentSend, stallResumes: number): Promise<boolean> {
  return touchWatched(send, currentTime(), { stall_resumes: stallResumes });
}

/**
 * A wait that is not a stall (its account's SES tenant is paused): the send's silence starts again now,
 * so neither the stall threshold nor the limit on unconfirmed batches runs while SES holds its mail.
 * False when the send progressed or was visited since it was read.
 */
export function restartSilence(send: SilentSend): Promise<boolean> {
  const now = currentTime();
  return touchWatched(send, now, { progress_at: now.toISOString(), stall_resumes: 0 });
}

/** Take a send off the watch (it ended, or it is gone). */
export async function unwatch(accountId: number, utr: string): Promise<void> {
  await unlessConditionFails(
    updateItem({
      Key: singleSendDispatchKey(accountId, utr),
      UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

/**
 * Put a running send back on the watch, heard of now: a hold that took it off (it waited for its
 * sender, which only a person can end) is over. Nothing for a send already completed or gone.
 */
export async function rewatch(accountId: number, utr: string): Promise<void> {
  await unlessConditionFails(
    updateItem({
      Key: singleSendDispatchKey(accountId, utr),
      UpdateExpression: 'SET gsi1pk = :partition, gsi1sk = :heard',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(completed_at)',
      ExpressionAttributeValues: { ':partition': stallWatchPartition(stallWatchShard(utr)), ':heard': stallWatchSortKey(currentTime(), accountId, utr) },
    }),
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
    ]),
  );
}
