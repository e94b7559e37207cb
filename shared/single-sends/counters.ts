// The statistics counters on a single send's item: the spec's numbers and those only its statistics
// answer shows, read together and added to atomically (never recreating a deleted send).
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../table/client';
import { isConditionFailure } from '../table/records';
import { singleSendKey } from './keys';
import { statisticNames, type SingleSendStatistics } from './record';

/** Counters kept on the send's item beside the spec's record (its statistics answer shows them). */
export const statisticsOnlyCounters = ['clicks', 'unique_clicks', 'complaints'] as const;

export type SingleSendCounter = keyof SingleSendStatistics | (typeof statisticsOnlyCounters)[number];

const singleSendCounters: readonly SingleSendCounter[] = [...statisticNames, ...statisticsOnlyCounters];

const maxConflictRetries = 8;

/** Every statistics counter of the send (0 where nothing was counted yet); undefined when there is no such send. */
export async function getSingleSendCounters(accountId: number, utr: string): Promise<Record<SingleSendCounter, number> | undefined> {
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: singleSendKey(accountId, utr),
      ProjectionExpression: ['pk', ...singleSendCounters].map((_, i) => `#c${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(['pk', ...singleSendCounters].map((name, i) => [`#c${i}`, name])),
    }),
  );
  const item = result.Item;
  if (!item) return undefined;
  return Object.fromEntries(singleSendCounters.map((name) => [name, Number(item[name] ?? 0)])) as Record<SingleSendCounter, number>;
}

/** Add to the send's statistics atomically; false when the send no longer exists (nothing is recreated). */
export async function addSingleSendCounts(accountId: number, utr: string, counts: Partial<Record<SingleSendCounter, number>>): Promise<boolean> {
  const entries = Object.entries(counts).filter(([, by]) => by !== undefined && by !== 0);
  if (entries.length === 0) return true;
  for (let attempt = 0; ; attempt++) {
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
      // A batch settling holds the send's item in its transaction for a moment: wait and add again.
      if ((error as { name?: string }).name !== 'TransactionConflictException' || attempt >= maxConflictRetries) throw error;
      await new Promise((resume) => setTimeout(resume, Math.min(500, 10 * 2 ** attempt + Math.random() * 20)));
    }
  }
}
