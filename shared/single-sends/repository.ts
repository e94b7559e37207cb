// Single sends: every table access of the API side (create, read, duplicate, update, delete). The
// sending pipeline's own writes to the same item live in single-send-progress.ts.
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isoTimestamp } from '../time';
import { deleteAllOrNothing, type TransactionItem } from '../table/bulk-delete';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { idSortKey, type Key } from '../table/keys';
import { SINGLE_SEND, singleSendIdIndexKey, singleSendIdIndexPartition, singleSendKey } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { db, tableName } from '../table/client';
import { deleteExistingItem, getItem, isConditionFailure, putNewItem, queryPage, setExpression, type Item } from '../table/records';
import {
  dispatchAtAttribute,
  singleSendStatus,
  statisticNames,
  toSingleSend,
  type SingleSend,
  type SendWaiting,
  type SingleSendContent,
  type SingleSendStatistics,
  waitingAttribute,
} from './record';

export * from './record';

/** The send is running or completed, so its content can no longer change. */
export class SingleSendLocked extends Error {
  constructor(readonly utr: string, readonly status: number) {
    super(`Single send ${utr} is in status ${status} and cannot be changed`);
    this.name = 'SingleSendLocked';
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Whether text can be a single send's utr at all; anything else is not found without a read. */
export function isSingleSendUtr(text: string): boolean {
  return uuidPattern.test(text);
}

function keyOf(accountId: number, utr: string): Key {
  if (!isSingleSendUtr(utr)) throw new RecordNotFound(SINGLE_SEND, utr);
  return singleSendKey(accountId, utr);
}

const zeroStatistics: SingleSendStatistics = Object.fromEntries(statisticNames.map((name) => [name, 0])) as unknown as SingleSendStatistics;

async function putSingleSend(accountId: number, record: SingleSend, dispatchAt: Date | null): Promise<void> {
  const created = await putNewItem({
    ...singleSendKey(accountId, record.utr),
    ...singleSendIdIndexKey(accountId, record.id),
    entity: SINGLE_SEND,
    ...record,
    ...(dispatchAt ? { [dispatchAtAttribute]: dispatchAt.toISOString() } : {}),
  });
  if (!created) throw new Error(`Single send ${record.utr} of account ${accountId} already exists`);
}

/** One page of the account's single sends, in id order (the id index). */
export async function listSingleSendsPage(accountId: number, page: PageRequest): Promise<ListPage<SingleSend>> {
  return mapPage(await queryListPage({ partition: singleSendIdIndexPartition(accountId), index: 'gsi1' }, page), toSingleSend);
}

/** One single send of the account; RecordNotFound when it does not exist there. */
export async function getSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  const item = await getItem(keyOf(accountId, utr));
  if (!item) throw new RecordNotFound(SINGLE_SEND, utr);
  return toSingleSend(item);
}

/** A new send's utr, for a caller that must name the send before it is stored. */
export function newSingleSendUtr(): string {
  return randomUUID();
}

/** How a new or updated send is saved when it cannot go yet: the utr it gets, and why it waits. */
export interface SaveOptions {
  utr?: string;
  /** Saved as a draft (status 0) that says why it waits; without it the send is ready (status 1). */
  waiting?: SendWaiting;
}

/**
 * Store a new send, ready to go (status 1) at `dispatchAt`, or waiting at status 0 (`waiting`) with
 * `dispatchAt` kept as its intended time; the caller schedules the job of a ready one.
 */
export async function createSingleSend(accountId: number, content: SingleSendContent, dispatchAt: Date, options: SaveOptions = {}): Promise<SingleSend> {
  const id = await nextId(accountId, SINGLE_SEND);
  const now = isoTimestamp();
  const record: SingleSend = {
    id,
    user_id: accountId,
    ...content,
    status: options.waiting ? singleSendStatus.initiate : singleSendStatus.ready,
    utr: options.utr ?? randomUUID(),
    ...zeroStatistics,
    unique_open_token: {},
    sent_at: null,
    created_at: now,
    updated_at: now,
    ...(options.waiting ? { waiting: options.waiting } : {}),
  };
  await putSingleSend(accountId, record, dispatchAt);
  return toSingleSend({ ...record });
}

/** Copy a send as a draft (status 0): new id and utr, statistics zeroed, never sent, name marked as a copy. */
export async function duplicateSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  // A copy is a new draft: the original's wait or failure is its own.
  const { waiting: _waiting, failure: _failure, ...original } = await getSingleSend(accountId, utr);
  const id = await nextId(accountId, SINGLE_SEND);
  const now = isoTimestamp();
  const copy: SingleSend = {
    ...original,
    ...zeroStatistics,
    id,
    single_send_name: `${original.single_send_name} (copy)`,
    status: singleSendStatus.initiate,
    utr: randomUUID(),
    unique_open_token: {},
    sent_at: null,
    created_at: now,
    updated_at: now,
  };
  await putSingleSend(accountId, copy, null);
  return toSingleSend({ ...copy });
}

/** Attributes an update clears when the new content does not set them: an old wait, a time zone no longer given. */
const replacedOptional = [waitingAttribute, 'schedule_timezone'] as const;

/**
 * Replace a send's content and make it ready (status 1) to go at `dispatchAt` (or a waiting draft,
 * with `waiting`), only while it is a draft or ready: the status check and the write are one
 * conditional update, so a send the dispatcher has just claimed is never changed under it. Any
 * earlier wait ends: the caller books the send's job anew. SingleSendLocked when running or completed.
 */
export async function updateSingleSend(
  accountId: number,
  utr: string,
  content: SingleSendContent,
  dispatchAt: Date,
  options: Pick<SaveOptions, 'waiting'> = {},
): Promise<SingleSend> {
  const key = keyOf(accountId, utr);
  const changes: Record<string, unknown> = {
    ...content,
    status: options.waiting ? singleSendStatus.initiate : singleSendStatus.ready,
    updated_at: isoTimestamp(),
    [dispatchAtAttribute]: dispatchAt.toISOString(),
    ...(options.waiting ? { [waitingAttribute]: options.waiting } : {}),
  };
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const names: Record<string, string> = { '#status_read': 'status' };
  const values: Record<string, unknown> = { ':initiate': singleSendStatus.initiate, ':ready': singleSendStatus.ready };
  const cleared = replacedOptional.filter((name) => defined[name] === undefined);
  cleared.forEach((name, i) => (names[`#r${i}`] = name));
  const removal = cleared.length > 0 ? ` REMOVE ${cleared.map((_, i) => `#r${i}`).join(', ')}` : '';
  const updated = await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `${setExpression(defined, names, values)}${removal}`,
        ConditionExpression: 'attribute_exists(pk) AND #status_read IN (:initiate, :ready)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    )
    .then((result) => result.Attributes)
    .catch((error: unknown) => {
      if (isConditionFailure(error)) return undefined;
      throw error;
    });
  if (updated) return toSingleSend(updated);
  // Missing (RecordNotFound from the read) or past the states that may change.
  const current = await getSingleSend(accountId, utr);
  throw new SingleSendLocked(utr, current.status);
}

/**
 * Delete one send as it is; the record as it was. Purges nothing: for a send never mailed (create's
 * undo when its job cannot be booked). The API's deletes go through send-cleanup-service.ts.
 */
export async function deleteSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  const deleted = await deleteExistingItem(keyOf(accountId, utr));
  if (!deleted) throw new RecordNotFound(SINGLE_SEND, utr);
  return toSingleSend(deleted);
}

/**
 * What a deletion is decided from and so conditioned on: the status (a send's scheduler job, and
 * whether it was ever mailed so has link items to purge) and its wait (a sender's waiting list).
 */
const deletionVersion = ['status', waitingAttribute] as const;

/** A send as just read, and the Delete that removes it only while its status and wait are still as read. */
export interface SingleSendDeletion {
  singleSend: SingleSend;
  /** For a transaction with what the deletion starts (a purge job); alone, see commitSingleSendDeletion. */
  action: TransactionItem;
}

function deleteAsRead(item: Item): NonNullable<TransactionItem['Delete']> {
  const names = Object.fromEntries(deletionVersion.map((name, i) => [`#v${i}`, name]));
  const values = Object.fromEntries(deletionVersion.flatMap((name, i) => (item[name] === undefined ? [] : [[`:v${i}`, item[name]]])));
  const checks = deletionVersion.map((name, i) => (item[name] === undefined ? `attribute_not_exists(#v${i})` : `#v${i} = :v${i}`));
  return {
    TableName: tableName(),
    Key: { pk: item.pk, sk: item.sk },
    ConditionExpression: ['attribute_exists(pk)', ...checks].join(' AND '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/** Read one send (strongly consistent) for its deletion; RecordNotFound when the account has no such send. */
export async function singleSendDeletion(accountId: number, utr: string): Promise<SingleSendDeletion> {
  const read = await db().send(new GetCommand({ TableName: tableName(), Key: keyOf(accountId, utr), ConsistentRead: true }));
  if (!read.Item) throw new RecordNotFound(SINGLE_SEND, utr);
  return { singleSend: toSingleSend(read.Item), action: { Delete: deleteAsRead(read.Item) } };
}

/** Carry out a deletion alone; false when the send changed or went since it was read (read it again). */
export async function commitSingleSendDeletion(deletion: SingleSendDeletion): Promise<boolean> {
  try {
    await db().send(new DeleteCommand(deletion.action.Delete as NonNullable<TransactionItem['Delete']>));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
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
export type SendDeletionPlan = (singleSends: SingleSend[]) => Promise<TransactionItem[][]>;

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
  const deleted = await deleteAllOrNothing({
    accountId,
    entity: SINGLE_SEND,
    keys,
    versionAttributes: deletionVersion,
    ...(plan ? { plan: async (items: Item[]) => (await plan(items.map(toSingleSend))).map((writes) => ({ writes })) } : {}),
  });
  return deleted.map(toSingleSend);
}
