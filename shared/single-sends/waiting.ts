// Why a send is not progressing, on the send's state item: set by a hold (the watchdog's, or a send held
// while something it needs is not ready), cleared by the progress that ends it, and shown only while
// it is true: any page or settled batch after `since` means the send is moving again.
import { conditionHeld, unlessConditionFails, updateItem } from '../table/records';
import { singleSendStateKey } from './keys';
import { getDispatchState } from './progress';
import { readSendState } from './state';
import { senderWaitReason } from './sender-waits';
import { reputationPauseReason, singleSendStatus, waitingAttribute, type SendWaiting, type SingleSend } from './record';

/**
 * Record why a ready or running send waits; false when it is gone or past running, or paused for its
 * reputation (that pause says why it waits until its owner resumes it; no other wait replaces it).
 */
export async function setWaiting(accountId: number, utr: string, waiting: SendWaiting): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  return conditionHeld(
    updateItem({
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'SET #waiting = :waiting',
      ConditionExpression: 'attribute_exists(pk) AND #status IN (:ready, :running) AND (attribute_not_exists(#waiting) OR #waiting.reason <> :paused)',
      ExpressionAttributeNames: { '#waiting': waitingAttribute, '#status': 'status' },
      ExpressionAttributeValues: { ':waiting': waiting, ':ready': singleSendStatus.ready, ':running': singleSendStatus.running, ':paused': reputationPauseReason },
    }),
  );
}

/** Clear the send's wait; with `since`, only that wait (a newer one, set meanwhile, stays). */
export async function clearWaiting(accountId: number, utr: string, since?: string): Promise<void> {
  if (!(await readSendState(accountId, utr))) return;
  await unlessConditionFails(
    updateItem({
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'REMOVE #waiting',
      ConditionExpression: since === undefined ? 'attribute_exists(#waiting)' : '#waiting.since = :since',
      ExpressionAttributeNames: { '#waiting': waitingAttribute },
      ...(since === undefined ? {} : { ExpressionAttributeValues: { ':since': since } }),
    }),
  );
}

/** Waits that no progress ends: a person must act (confirm the sender, resume a paused send). */
const personHolds = new Set<string>([senderWaitReason.unverified, reputationPauseReason]);

/**
 * The send as it should be shown: a running send's stored wait is dropped once the send progressed
 * after it began (one read of the dispatch progress, only for a send that has a wait stored).
 */
export async function withCurrentWaiting(singleSend: SingleSend): Promise<SingleSend> {
  const { waiting } = singleSend;
  if (!waiting || singleSend.status !== singleSendStatus.running) return singleSend;
  // A send held for its sender (or paused) stays held while batches queued before the hold settle: only
  // the sender's confirmation, the owner's resume (or the send's end) ends that wait.
  if (personHolds.has(waiting.reason)) return singleSend;
  const progress = await getDispatchState(singleSend.user_id, singleSend.utr);
  if (!progress || Date.parse(progress.progressAt) <= Date.parse(waiting.since)) return singleSend;
  const { waiting: _ended, ...moving } = singleSend;
  return moving;
}
