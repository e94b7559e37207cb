// Single sends: the table access of the API side (create, read, duplicate, update; deletes are in
// deletion.ts). The sending pipeline's own writes live in state.ts, counters.ts and progress.ts.
import { randomUUID } from 'node:crypto';
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import type { Key } from '../table/keys';
import { SINGLE_SEND, singleSendIdIndexKey, singleSendIdIndexPartition, singleSendKey, singleSendStateKey } from './keys';
import { queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { conditionHeld, deleteItem, getItem, putNewItem, setExpression, type Item } from '../table/records';
import { transactWrite } from '../table/transactions';
import { countersOf, readCounterShards } from './counters';
import { getStateItem, newStateItem, readSendState, versionAttribute, withState } from './state';
import { abSettingsAttribute, abSettingsOf, type AbSettings } from './ab-test';
import {
  dispatchAtAttribute,
  singleSendStatus,
  statisticNames,
  toSingleSend,
  type SingleSend,
  type SendWaiting,
  type SingleSendContent,
  type SingleSendStatistics,
  type ResendOf,
  resendOfAttribute,
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

/** The key of the account's send `utr`; RecordNotFound at once for text that cannot be a utr. */
export function keyOf(accountId: number, utr: string): Key {
  if (!isSingleSendUtr(utr)) throw new RecordNotFound(SINGLE_SEND, utr);
  return singleSendKey(accountId, utr);
}

const zeroStatistics: SingleSendStatistics = Object.fromEntries(statisticNames.map((name) => [name, 0])) as unknown as SingleSendStatistics;

async function putSingleSend(accountId: number, record: SingleSend, dispatchAt: Date | null, abTest?: AbSettings): Promise<void> {
  const item = {
    ...singleSendKey(accountId, record.utr),
    ...singleSendIdIndexKey(accountId, record.id),
    entity: SINGLE_SEND,
    ...record,
    ...(abTest ? { [abSettingsAttribute]: abTest } : {}),
    ...(dispatchAt ? { [dispatchAtAttribute]: dispatchAt.toISOString() } : {}),
  };
  // The state first: a record is never without it (a state item without its record is never read and is removed).
  if (!(await putNewItem(newStateItem(accountId, record.utr, item)))) throw new Error(`Single send ${record.utr} of account ${accountId} already exists`);
  const created = await putNewItem(item).catch(async (error: unknown) => {
    await removeStateItem(accountId, record.utr);
    throw error;
  });
  if (!created) throw new Error(`Single send ${record.utr} of account ${accountId} already exists`);
}

async function removeStateItem(accountId: number, utr: string): Promise<void> {
  await deleteItem({ Key: singleSendStateKey(accountId, utr) });
}

/** Records as the API shows them: each with its state item's attributes and its counters summed. */
async function withStateAndCounters(accountId: number, records: Item[], consistent = false): Promise<SingleSend[]> {
  const utrs = records.map((record) => String(record.sk));
  const [states, shards] = await Promise.all([
    utrs.length > 0 ? batchGetAll(utrs.map((utr) => singleSendStateKey(accountId, utr)), { consistentRead: consistent }) : Promise.resolve([]),
    readCounterShards(accountId, utrs, consistent),
  ]);
  const stateOf = new Map(states.map((state) => [String(state.sk), state]));
  return records.map((record) => {
    const state = stateOf.get(String(record.sk));
    return toSingleSend({ ...withState(record, state), ...countersOf(record, state, shards.get(String(record.sk)) ?? []) });
  });
}

/** One page of the account's single sends, in id order (the id index). */
export async function listSingleSendsPage(accountId: number, page: PageRequest): Promise<ListPage<SingleSend>> {
  const records = await queryListPage({ partition: singleSendIdIndexPartition(accountId), index: 'gsi1' }, page);
  const sends = await withStateAndCounters(accountId, records.items);
  return { items: sends, nextCursor: records.nextCursor };
}

/** One single send of the account; RecordNotFound when it does not exist there. */
export async function getSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  return (await readSingleSend(accountId, utr, false)).singleSend;
}

/** A send with its A/B test's settings (undefined when it tests nothing) and its counter shards, from one read of each. */
export interface SingleSendWithTest {
  singleSend: SingleSend;
  abTest: AbSettings | undefined;
  shards: Item[];
}

/** One single send of the account with its A/B test's settings; RecordNotFound when it does not exist there. */
export function getSingleSendWithTest(accountId: number, utr: string): Promise<SingleSendWithTest> {
  return readSingleSend(accountId, utr, false);
}

async function readSingleSend(accountId: number, utr: string, consistent: boolean): Promise<SingleSendWithTest> {
  const key = keyOf(accountId, utr);
  const [record, state, shards] = await Promise.all([
    getItem(key, { consistent }),
    getStateItem(accountId, utr, consistent),
    readCounterShards(accountId, [utr], consistent),
  ]);
  if (!record) throw new RecordNotFound(SINGLE_SEND, utr);
  const sendShards = shards.get(utr) ?? [];
  return {
    singleSend: toSingleSend({ ...withState(record, state), ...countersOf(record, state, sendShards) }),
    abTest: abSettingsOf(record),
    shards: sendShards,
  };
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
  /** A resend: its audience is its original's recipients who did not open (or click) it. */
  resendOf?: ResendOf;
}

/**
 * Store a new send, ready to go (status 1) at `dispatchAt`, or waiting at status 0 (`waiting`) with
 * `dispatchAt` kept as its intended time; the caller schedules the job of a ready one.
 */
export async function createSingleSend(accountId: number, content: SingleSendContent, dispatchAt: Date, options: SaveOptions = {}): Promise<SingleSend> {
  const id = await nextId(accountId, SINGLE_SEND);
  const now = isoTimestamp();
  const { ab_test: abTest, ...plain } = content;
  const record: SingleSend = {
    id,
    user_id: accountId,
    ...plain,
    status: options.waiting ? singleSendStatus.initiate : singleSendStatus.ready,
    utr: options.utr ?? randomUUID(),
    ...zeroStatistics,
    unique_open_token: {},
    sent_at: null,
    created_at: now,
    updated_at: now,
    ...(options.waiting ? { waiting: options.waiting } : {}),
    ...(options.resendOf ? { resend_of: options.resendOf } : {}),
  };
  await putSingleSend(accountId, record, dispatchAt, abTest);
  return toSingleSend({ ...record });
}

/** Copy a send as a draft (status 0): new id and utr, statistics zeroed, never sent, name marked as a copy. */
export async function duplicateSingleSend(accountId: number, utr: string): Promise<SingleSend> {
  // A copy is a new draft: the original's wait or failure is its own.
  // A copy of a resend is an ordinary draft: the update that readies it names its audience.
  const { singleSend, abTest } = await readSingleSend(accountId, utr, false);
  const { waiting: _waiting, failure: _failure, resend_of: _resendOf, ...original } = singleSend;
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
  await putSingleSend(accountId, copy, null, abTest);
  return toSingleSend({ ...copy });
}

/**
 * Attributes an update clears when the new content does not set them: an old wait, a time zone or an
 * A/B test no longer given, and a resend's original (an update names the send's audience: it is an
 * ordinary send from then on).
 */
const replacedOptional = [waitingAttribute, 'schedule_timezone', abSettingsAttribute, resendOfAttribute] as const;

/**
 * Replace a send's content and make it ready (status 1) to go at `dispatchAt` (or a waiting draft,
 * with `waiting`), only while it is a draft or ready: the record and its state item change in one
 * transaction conditioned on both, so a send the dispatcher has just claimed is never changed under
 * it. Any earlier wait ends: the caller books the send's job anew. SingleSendLocked when running or completed.
 */
export async function updateSingleSend(
  accountId: number,
  utr: string,
  content: SingleSendContent,
  dispatchAt: Date,
  options: Pick<SaveOptions, 'waiting'> = {},
): Promise<SingleSend> {
  const key = keyOf(accountId, utr);
  // A send stored before the state had its own item adopts one first.
  if (!(await readSendState(accountId, utr))) throw new RecordNotFound(SINGLE_SEND, utr);
  const status = options.waiting ? singleSendStatus.initiate : singleSendStatus.ready;
  const now = isoTimestamp();
  const changes: Record<string, unknown> = {
    ...content,
    status,
    updated_at: now,
    [dispatchAtAttribute]: dispatchAt.toISOString(),
    ...(options.waiting ? { [waitingAttribute]: options.waiting } : {}),
  };
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const names: Record<string, string> = { '#status_read': 'status' };
  const values: Record<string, unknown> = { ':initiate': singleSendStatus.initiate, ':ready': singleSendStatus.ready };
  const cleared = replacedOptional.filter((name) => defined[name] === undefined);
  cleared.forEach((name, i) => (names[`#r${i}`] = name));
  const removal = cleared.length > 0 ? ` REMOVE ${cleared.map((_, i) => `#r${i}`).join(', ')}` : '';
  const editable = 'attribute_exists(pk) AND #status_read IN (:initiate, :ready)';
  const state: Record<string, unknown> = { status, updated_at: now, [dispatchAtAttribute]: dispatchAt.toISOString(), ...(options.waiting ? { [waitingAttribute]: options.waiting } : {}) };
  const stateNames: Record<string, string> = { '#status_read': 'status', '#version': versionAttribute, ...(options.waiting ? {} : { '#waiting': waitingAttribute }) };
  const stateValues: Record<string, unknown> = { ':initiate': singleSendStatus.initiate, ':ready': singleSendStatus.ready, ':one': 1 };
  const stateSet = setExpression(state, stateNames, stateValues);
  const updated = await conditionHeld(
    transactWrite([
      {
        Update: {
          Key: key,
          UpdateExpression: `${setExpression(defined, names, values)}${removal}`,
          ConditionExpression: editable,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      {
        Update: {
          Key: singleSendStateKey(accountId, utr),
          // The content changed: a container's cached copy of it is stale from here.
          UpdateExpression: `${stateSet} ADD #version :one${options.waiting ? '' : ' REMOVE #waiting'}`,
          ConditionExpression: editable,
          ExpressionAttributeNames: stateNames,
          ExpressionAttributeValues: stateValues,
        },
      },
    ]),
  );
  if (!updated) {
    // Missing (RecordNotFound from the read) or past the states that may change.
    const current = await getSingleSend(accountId, utr);
    throw new SingleSendLocked(utr, current.status);
  }
  return (await readSingleSend(accountId, utr, true)).singleSend;
}
