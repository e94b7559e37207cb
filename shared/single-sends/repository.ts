// Single sends: every table access of the API side (create, read, duplicate, update, delete). The
// sending pipeline's own writes to the same item live in single-send-progress.ts.
import { randomUUID } from 'node:crypto';
import { isoTimestamp } from '../time';
import { deleteAllOrNothing } from '../table/bulk-delete';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { idSortKey, type Key } from '../table/keys';
import { SINGLE_SEND, singleSendIdIndexKey, singleSendIdIndexPartition, singleSendKey } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { deleteExistingItem, getItem, putNewItem, queryPage, updateExistingItem } from '../table/records';
import {
  dispatchAtAttribute,
  singleSendStatus,
  statisticNames,
  toSingleSend,
  type SingleSend,
  type SingleSendContent,
  type SingleSendStatistics,
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

/** Store a new send, ready to go (status 1) at `dispatchAt`; the caller schedules its job. */
export async function createSingleSend(accountId: number, content: SingleSendContent, dispatchAt: Date): Promise<SingleSend> {
  const id = await nextId(accountId, SINGLE_SEND);
  const now = isoTimestamp();
  const record: SingleSend = {
    id,
    user_id: accountId,
    ...content,
    status: singleSendStatus.ready,
    utr: randomUUID(),
    ...zeroStatistics,
    unique_open_token: {},
    sent_at: null,
    created_at: now,
    updated_at: now,
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

/**
 * Replace a send's content and make it ready (status 1) to go at `dispatchAt`, only while it is a
 * draft or ready: the status check and the write are one conditional update, so a send the
 * dispatcher has just claimed is never changed under it. SingleSendLocked when running or completed.
 */
export async function updateSingleSend(accountId: number, utr: string, content: SingleSendContent, dispatchAt: Date): Promise<SingleSend> {
  const key = keyOf(accountId, utr);
  const changes: Record<string, unknown> = {
    ...content,
    status: singleSendStatus.ready,
    updated_at: isoTimestamp(),
    [dispatchAtAttribute]: dispatchAt.toISOString(),
  };
  const updated = await updateExistingItem(key, changes, {
    condition: '#status_read IN (:initiate, :ready)',
    names: { '#status_read': 'status' },
    values: { ':initiate': singleSendStatus.initiate, ':ready': singleSendStatus.ready },
  });
  if (updated) return toSingleSend(updated);
  // Missing (RecordNotFound from the read) or past the states that may change.
  const current = await getSingleSend(accountId, utr);
  throw new SingleSendLocked(utr, current.status);
}

/** Delete one send; the record as it was, so the caller can cancel its job. */
export async function deleteSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  const deleted = await deleteExistingItem(keyOf(accountId, utr));
  if (!deleted) throw new RecordNotFound(SINGLE_SEND, utr);
  return toSingleSend(deleted);
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

/**
 * Delete many sends named by integer id or by utr, all or nothing: any unknown or foreign one
 * deletes none. The records as they were, so the caller can cancel their jobs.
 */
export async function deleteSingleSends(accountId: number, references: readonly (number | string)[]): Promise<SingleSend[]> {
  const keys: Key[] = [];
  for (let start = 0; start < references.length; start += idLookupConcurrency) {
    const group = references.slice(start, start + idLookupConcurrency);
    const utrs = await Promise.all(group.map((reference) => (typeof reference === 'number' ? utrOfId(accountId, reference) : reference)));
    keys.push(...utrs.map((utr) => keyOf(accountId, utr)));
  }
  const deleted = await deleteAllOrNothing({ accountId, entity: SINGLE_SEND, keys });
  return deleted.map(toSingleSend);
}
