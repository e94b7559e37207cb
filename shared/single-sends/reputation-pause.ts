// A running send paused for its reputation (too many bounces or complaints): the pause is the send's
// `waiting` with reason `reputation`, set by one conditional write so exactly one caller pauses it (and
// mails the notice); batches that reach the deliverer while it is paused are parked (parked-batches.ts),
// unmailed, and queued again by the resume. The resume records the counters it resumed at: the rates are judged
// again on what the send mails afterwards.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../table/client';
import { isConditionFailure } from '../table/records';
import { currentTime } from '../time';
import { singleSendKey } from './keys';
import { reputationPauseReason, singleSendStatus, waitingAttribute, type SendWaiting } from './record';


/** The counters a rate is judged on (a complaint comes after a delivery: it is among `delivered`). */
export interface ReputationCounts {
  delivered: number;
  bounces: number;
  complaints: number;
}

/** What the pause check reads of a send: whether it may pause, its counters, and those it last resumed at. */
export interface ReputationView {
  running: boolean;
  paused: boolean;
  counts: ReputationCounts;
  base: ReputationCounts;
}

const baseAttribute = 'reputation_base';

function countsOf(value: unknown): ReputationCounts {
  const stored = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return { delivered: Number(stored.delivered ?? 0), bounces: Number(stored.bounces ?? 0), complaints: Number(stored.complaints ?? 0) };
}

/** The send's status, pause and counters in one read; undefined when it is gone. */
export async function getReputationView(accountId: number, utr: string): Promise<ReputationView | undefined> {
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: singleSendKey(accountId, utr),
      ConsistentRead: true,
      ProjectionExpression: 'pk, #status, #waiting, delivered, bounces, complaints, #base',
      ExpressionAttributeNames: { '#status': 'status', '#waiting': waitingAttribute, '#base': baseAttribute },
    }),
  );
  const item = result.Item;
  if (!item) return undefined;
  const waiting = item[waitingAttribute] as { reason?: unknown } | undefined;
  return {
    running: item.status === singleSendStatus.running,
    paused: waiting?.reason === reputationPauseReason,
    counts: countsOf(item),
    base: countsOf(item[baseAttribute]),
  };
}

/** Pause a running send that is not paused already; true for the one caller that paused it. */
export async function pauseForReputation(accountId: number, utr: string, message: string): Promise<boolean> {
  const waiting: SendWaiting = { reason: reputationPauseReason, message, since: currentTime().toISOString(), retry_at: null };
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: singleSendKey(accountId, utr),
        UpdateExpression: 'SET #waiting = :waiting',
        ConditionExpression: '#status = :running AND (attribute_not_exists(#waiting) OR #waiting.reason <> :reputation)',
        ExpressionAttributeNames: { '#waiting': waitingAttribute, '#status': 'status' },
        ExpressionAttributeValues: { ':waiting': waiting, ':running': singleSendStatus.running, ':reputation': reputationPauseReason },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** End a running send's pause, recording the counters it resumed at; false when it was not paused. */
export async function endReputationPause(accountId: number, utr: string, resumedAt: ReputationCounts): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: singleSendKey(accountId, utr),
        UpdateExpression: 'SET #base = :base REMOVE #waiting',
        ConditionExpression: '#status = :running AND #waiting.reason = :reputation',
        ExpressionAttributeNames: { '#waiting': waitingAttribute, '#status': 'status', '#base': baseAttribute },
        ExpressionAttributeValues: { ':base': resumedAt, ':running': singleSendStatus.running, ':reputation': reputationPauseReason },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
