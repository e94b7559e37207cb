// Sends waiting for their sender: the waits' wording, the per-sender list a sender's confirmation reads
// (one small item per waiting send, written before the send's own wait, so no waiting send is ever
// missing from it), and the conditional write that releases one send with the sender's details.
import { isoTimestamp } from '../time';
import { conditionHeld, deleteItem, getItem, putItem, queryEvery, unlessConditionFails, updateItem } from '../table/records';
import { transactWrite, type TransactionAction } from '../table/transactions';
import { senderWaitKey, senderWaitPartition, singleSendKey, singleSendStateKey } from './keys';
import { dispatchAtAttribute, singleSendStatus, toSingleSend, waitingAttribute, type SendWaiting, type SingleSend, type SingleSendContent } from './record';
import { readSendState, versionAttribute, withState } from './state';

/** The waits about a send's sender: `unverified` ends by itself when the sender is confirmed; `deleted` needs an update. */
export const senderWaitReason = { unverified: 'sender-unverified', deleted: 'sender-deleted' } as const;

export function senderUnverifiedMessage(senderId: number): string {
  return `Sender ${senderId} is not verified: the send waits and moves on by itself once the sender's address is confirmed.`;
}

/** A ready send can be updated to name another sender; a running one cannot, and ends. */
export function senderDeletedMessage(senderId: number, running: boolean): string {
  return running
    ? `Sender ${senderId} was deleted while the send was running; sending has stopped.`
    : `Sender ${senderId} no longer exists: update the send to name another sender.`;
}

/** The wait of a send saved with an unverified sender: nothing is booked, the confirmation moves it. */
export function senderUnverifiedWaiting(senderId: number, since: Date): SendWaiting {
  return { reason: senderWaitReason.unverified, message: senderUnverifiedMessage(senderId), since: since.toISOString(), retry_at: null };
}

/**
 * Put the send on the sender's list. Written before the send's own wait: a send stored as waiting is
 * then always listed, and an entry whose send never came (or moved on) is dropped when the list is read.
 */
export async function listSenderWait(accountId: number, senderId: number, utr: string): Promise<void> {
  await putItem({ Item: { ...senderWaitKey(accountId, senderId, utr), entity: 'single-send-sender-wait', utr, sender_id: senderId } });
}

export async function unlistSenderWait(accountId: number, senderId: number, utr: string): Promise<void> {
  await deleteItem({ Key: senderWaitKey(accountId, senderId, utr) });
}

/** The utrs on the sender's list, strongly consistent (an entry written just before a confirmation is seen). */
export async function sendsListedForSender(accountId: number, senderId: number): Promise<string[]> {
  const entries = await queryEvery({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': senderWaitPartition(accountId, senderId) },
    ProjectionExpression: 'sk',
    ConsistentRead: true,
  });
  return entries.map((item) => String(item.sk));
}

/** A send released from its sender's wait: the record as now stored, and when its job is due. */
export interface ReleasedSend {
  singleSend: SingleSend;
  /** ISO 8601, or undefined when the send never had a time (it goes at once). */
  dispatchAt: string | undefined;
  /** The status and wait it had, to put back if its job cannot be booked. */
  before: { status: number; waiting: Record<string, unknown> };
}

export type SenderDetailsCopy = Pick<SingleSendContent, 'from_sender' | 'reply_to' | 'sender_name' | 'sender_address'>;

/** The sender's details set on the record (`#d<i>` names, `:d<i>` values added to those given). */
function detailsSet(details: SenderDetailsCopy, names: Record<string, string>, values: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([name, value], i) => {
      names[`#d${i}`] = name;
      values[`:d${i}`] = value;
      return `#d${i} = :d${i}`;
    })
    .join(', ');
}

type TransactUpdate = NonNullable<TransactionAction['Update']>;

/** A change of the content and the state together; false when a condition failed. */
async function changeTogether(record: TransactUpdate, state: TransactUpdate): Promise<boolean> {
  return conditionHeld(transactWrite([{ Update: record }, { Update: state }]));
}

/**
 * Release a send that waits for this sender: the wait ends, the sender's details (its address as just
 * confirmed) are copied again, and a draft (0) becomes ready (1); a ready or running send keeps its
 * status. Conditional on the send, as read, still waiting for this sender; undefined otherwise.
 */
export async function releaseSenderWait(accountId: number, utr: string, senderId: number, details: SenderDetailsCopy): Promise<ReleasedSend | undefined> {
  const [item, state] = await Promise.all([
    getItem(singleSendKey(accountId, utr), { consistent: true }),
    readSendState(accountId, utr),
  ]);
  const waiting = state?.[waitingAttribute] as { reason?: unknown; since?: unknown } | undefined;
  if (!item || !state || Number(item.sender_id) !== senderId || waiting?.reason !== senderWaitReason.unverified) return undefined;
  const status = Number(state.status);
  const next = status === singleSendStatus.initiate ? singleSendStatus.ready : status;
  const now = isoTimestamp();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':sender': senderId, ':now': now };
  const released = await changeTogether(
    {
      Key: singleSendKey(accountId, utr),
      UpdateExpression: `SET updated_at = :now, ${detailsSet(details, names, values)}`,
      ConditionExpression: 'sender_id = :sender',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    {
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'SET #status = :next, updated_at = :now REMOVE #waiting ADD #version :one',
      ConditionExpression: '#status = :read AND #waiting.since = :since',
      ExpressionAttributeNames: { '#status': 'status', '#waiting': waitingAttribute, '#version': versionAttribute },
      ExpressionAttributeValues: { ':read': status, ':since': waiting.since, ':next': next, ':now': now, ':one': 1 },
    },
  );
  if (!released) return undefined;
  const { [waitingAttribute]: _ended, ...stateAfter } = state;
  const stored = withState({ ...item, ...details, updated_at: now }, { ...stateAfter, status: next, updated_at: now });
  const dispatchAt = stored[dispatchAtAttribute];
  return {
    singleSend: toSingleSend(stored),
    dispatchAt: typeof dispatchAt === 'string' ? dispatchAt : undefined,
    before: { status, waiting: waiting as Record<string, unknown> },
  };
}

/**
 * Undo a release whose job could not be booked: the send waits for its sender again (and stays on
 * its list), so pressing the confirmation button again releases it. Only while nothing changed it since.
 */
export async function restoreSenderWait(accountId: number, released: ReleasedSend): Promise<void> {
  await unlessConditionFails(
    updateItem({
      Key: singleSendStateKey(accountId, released.singleSend.utr),
      UpdateExpression: 'SET #status = :before, #waiting = :waiting',
      ConditionExpression: '#status = :released AND attribute_not_exists(#waiting) AND updated_at = :updated',
      ExpressionAttributeNames: { '#status': 'status', '#waiting': waitingAttribute },
      ExpressionAttributeValues: {
        ':before': released.before.status,
        ':waiting': released.before.waiting,
        ':released': released.singleSend.status,
        ':updated': released.singleSend.updated_at,
      },
    }),
  );
}

/**
 * Copy the sender's current details into a send that has not completed, while it still holds the
 * from address `readFrom`: the sender's address changed and the new one is verified. False when the
 * send changed meanwhile. The content's version goes up, so containers that keep it read it again.
 */
export async function recopySenderDetails(accountId: number, utr: string, readFrom: string, details: SenderDetailsCopy): Promise<boolean> {
  if (!(await readSendState(accountId, utr))) return false;
  const now = isoTimestamp();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':readFrom': readFrom, ':now': now };
  return changeTogether(
    {
      Key: singleSendKey(accountId, utr),
      UpdateExpression: `SET updated_at = :now, ${detailsSet(details, names, values)}`,
      ConditionExpression: 'attribute_exists(pk) AND from_sender = :readFrom',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    {
      Key: singleSendStateKey(accountId, utr),
      UpdateExpression: 'SET updated_at = :now ADD #version :one',
      ConditionExpression: '#status IN (:ready, :running)',
      ExpressionAttributeNames: { '#status': 'status', '#version': versionAttribute },
      ExpressionAttributeValues: { ':now': now, ':one': 1, ':ready': singleSendStatus.ready, ':running': singleSendStatus.running },
    },
  );
}
