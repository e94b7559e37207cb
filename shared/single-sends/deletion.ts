// Deleting single sends: one as it is (create's undo), or many all or nothing with the writes that go
// with each (a purge job), each conditioned on the status and wait it was read with.
import { batchGetAll } from '../table/batch';
import { deleteAllOrNothing } from '../table/bulk-delete';
import { RecordNotFound } from '../table/errors';
import { idSortKey, type Key } from '../table/keys';
import { conditionHeld, getItem, queryPage, type Item } from '../table/records';
import { transactWrite, type TransactionAction } from '../table/transactions';
import { counterShardDeletes, countersOf, readCounterShards } from './counters';
import { SINGLE_SEND, singleSendIdIndexPartition, singleSendStateKey } from './keys';
import { toSingleSend, waitingAttribute, type SingleSend } from './record';
import { keyOf } from './repository';
import { getStateItem, withState } from './state';

/**
 * Delete one send as it is; the record as it was. Purges nothing: for a send never mailed (create's
 * undo when its job cannot be booked). The API's deletes go through send-cleanup-service.ts.
 */
export async function deleteSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  const deletion = await singleSendDeletion(accountId, utr);
  if (!(await commitSingleSendDeletion(deletion))) throw new RecordNotFound(SINGLE_SEND, utr);
  return deletion.singleSend;
}

/**
 * What a deletion is decided from and so conditioned on: the status (a send's scheduler job, and
 * whether it was ever mailed so has link items to purge) and its wait (a sender's waiting list), on
 * the state item (on the record of a send stored before it had one).
 */
const deletionVersion = ['status', waitingAttribute] as const;

/** A send as just read, and the deletes that remove it (record, state, counters) only while its status and wait are still as read. */
export interface SingleSendDeletion {
  singleSend: SingleSend;
  /** For a transaction with what the deletion starts (a purge job); alone, see commitSingleSendDeletion. */
  actions: TransactionAction[];
}

/** A Delete of `key` conditioned on `item`'s version as read (absent: the item must still be absent). */
function deleteAsRead(key: Key, item: Item | undefined): TransactionAction {
  if (!item) return { Delete: { Key: key, ConditionExpression: 'attribute_not_exists(pk)' } };
  const names = Object.fromEntries(deletionVersion.map((name, i) => [`#v${i}`, name]));
  const values = Object.fromEntries(deletionVersion.flatMap((name, i) => (item[name] === undefined ? [] : [[`:v${i}`, item[name]]])));
  const checks = deletionVersion.map((name, i) => (item[name] === undefined ? `attribute_not_exists(#v${i})` : `#v${i} = :v${i}`));
  return {
    Delete: {
      Key: key,
      ConditionExpression: ['attribute_exists(pk)', ...checks].join(' AND '),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

/** The deletes of what a send keeps beside its record: its state item (conditioned as read) and its counters. */
function companionDeletes(accountId: number, utr: string, state: Item | undefined): TransactionAction[] {
  return [deleteAsRead(singleSendStateKey(accountId, utr), state), ...counterShardDeletes(accountId, utr)];
}

/** Read one send (strongly consistent) for its deletion; RecordNotFound when the account has no such send. */
export async function singleSendDeletion(accountId: number, utr: string): Promise<SingleSendDeletion> {
  const key = keyOf(accountId, utr);
  const [read, state] = await Promise.all([getItem(key, { consistent: true }), getStateItem(accountId, utr, true)]);
  if (!read) throw new RecordNotFound(SINGLE_SEND, utr);
  const shards = await readCounterShards(accountId, [utr], true);
  const singleSend = toSingleSend({ ...withState(read, state), ...countersOf(read, state, shards.get(utr) ?? []) });
  const record: TransactionAction = { Delete: { Key: key, ConditionExpression: 'attribute_exists(pk)' } };
  return { singleSend, actions: [state ? record : deleteAsRead(key, read), ...companionDeletes(accountId, utr, state)] };
}

/** Carry out a deletion alone; false when the send changed or went since it was read (read it again). */
export async function commitSingleSendDeletion(deletion: SingleSendDeletion): Promise<boolean> {
  return conditionHeld(transactWrite(deletion.actions));
}

/** The utr of the send with this integer id, from the id index; RecordNotFound when there is none. */
async function utrOfId(accountId: number, id: number): Promise<string> {
  const page = await queryPage({ partition: singleSendIdIndexPartition(accountId), index: 'gsi1', beginsWith: idSortKey(id), limit: 1 });
  const item = page.items[0];
  if (!item) throw new RecordNotFound(SINGLE_SEND, id);
  return String(item.utr);
}

/** Lookups of ids run this many at a time: fast for a long list without a burst that throttles the table. */
const idLookupConcurrency = 25;

/** The writes that go with deleting each send (in the order given), planned from the sends as just read. */
export type SendDeletionPlan = (singleSends: SingleSend[]) => Promise<TransactionAction[][]>;

/**
 * Delete many sends named by integer id or by utr, all or nothing: any unknown or foreign one
 * deletes none. Each send goes in one transaction with the writes `plan` gives it, conditioned on
 * its status and wait as read (a send changed meanwhile is read and planned again). The records as
 * they were, so the caller can cancel their jobs.
 */
export async function deleteSingleSends(accountId: number, references: readonly (number | string)[], plan?: SendDeletionPlan): Promise<SingleSend[]> {
  const keys: Key[] = [];
  for (let start = 0; start < references.length; start += idLookupConcurrency) {
    const group = references.slice(start, start + idLookupConcurrency);
    const utrs = await Promise.all(group.map((reference) => (typeof reference === 'number' ? utrOfId(accountId, reference) : reference)));
    keys.push(...utrs.map((utr) => keyOf(accountId, utr)));
  }
  // Each send's state item as last read for its plan: the status and wait its deletion was planned from.
  const states = new Map<string, Item | undefined>();
  const deleted = await deleteAllOrNothing({
    accountId,
    entity: SINGLE_SEND,
    keys,
    versionAttributes: deletionVersion,
    plan: async (items: Item[]) => {
      const utrs = items.map((item) => String(item.sk));
      const read = await batchGetAll(utrs.map((utr) => singleSendStateKey(accountId, utr)), { consistentRead: true });
      for (const utr of utrs) states.set(utr, read.find((state) => state.sk === utr));
      const sends = items.map((item) => toSingleSend(withState(item, states.get(String(item.sk)))));
      const planned = plan ? await plan(sends) : [];
      return utrs.map((utr, index) => ({ writes: [...companionDeletes(accountId, utr, states.get(utr)), ...(planned[index] ?? [])] }));
    },
  });
  return deleted.map((item) => toSingleSend(withState(item, states.get(String(item.sk)))));
}
