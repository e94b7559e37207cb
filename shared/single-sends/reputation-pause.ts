// A running send paused for its reputation (too many bounces or complaints): the pause is the send's
// `waiting` with reason `reputation`, set by one conditional write so exactly one caller pauses it (and
// mails the notice); batches that reach the deliverer while it is paused are parked (parked-batches.ts),
// unmailed, and queued again by the resume. The resume records the counters it resumed at: the rates are judged
// again on what the send mails afterwards.
import { reputationCountsOf, type ReputationCounts } from '../ledger/sendable';
import { conditionHeld, updateItem } from '../table/records';
import { currentTime } from '../time';
import { countersOf, readCounterShards } from './counters';
import { singleSendStateKey } from './keys';
import { reputationPauseReason, singleSendStatus, waitingAttribute, type SendWaiting } from './record';
import { readSendState, reputationBaseAttribute, sendStateOf } from './state';

/** What the pause check reads of a send: whether it may pause, its counters, and those it last resumed at. */
export interface ReputationView {
  running: boolean;
  paused: boolean;
  counts: ReputationCounts;
  base: ReputationCounts;
}

const baseAttribute = reputationBaseAttribute;

/**
 * The send's status, pause and counters: its state item and its counter shards, strongly consistent
 * (small items; never the record with the design). Undefined when it is gone.
 */
export async function getReputationView(accountId: number, utr: string): Promise<ReputationView | undefined> {
  const [state, shards] = await Promise.all([readSendState(accountId, utr), readCounterShards(accountId, [utr], true)]);
  if (!state) return undefined;
  const { running, paused } = sendStateOf(state);
  return { running, paused, counts: reputationCountsOf(countersOf(undefined, state, shards.get(utr) ?? [])), base: reputationCountsOf(state[baseAttribute]) };
}

/** Pause a running send that is not paused already; true for the one caller that paused it. */
export async function pauseForReputation(accountId: number, utr: string, message: string): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  const waiting: SendWaiting = { reason: reputationPauseReason, message, since: currentTime().toISOString(), retry_at: null };
  return conditionHeld(
    updateItem({
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'SET #waiting = :waiting',
      ConditionExpression: '#status = :running AND (attribute_not_exists(#waiting) OR #waiting.reason <> :reputation)',
      ExpressionAttributeNames: { '#waiting': waitingAttribute, '#status': 'status' },
      ExpressionAttributeValues: { ':waiting': waiting, ':running': singleSendStatus.running, ':reputation': reputationPauseReason },
    }),
  );
}

/** End a running send's pause, recording the counters it resumed at; false when it was not paused. */
export async function endReputationPause(accountId: number, utr: string, resumedAt: ReputationCounts): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  return conditionHeld(
    updateItem({
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'SET #base = :base REMOVE #waiting',
      ConditionExpression: '#status = :running AND #waiting.reason = :reputation',
      ExpressionAttributeNames: { '#waiting': waitingAttribute, '#status': 'status', '#base': baseAttribute },
      ExpressionAttributeValues: { ':base': resumedAt, ':running': singleSendStatus.running, ':reputation': reputationPauseReason },
    }),
  );
}
