// A single send's state item: its status, wait, failure, completion time, the counters its reputation
// was last resumed at, when its job is due, and the version of its content, in a small item apart from
// the record that holds the design, so the pipeline's reads and writes never touch the design. A send
// stored before the state had an item of its own keeps it on its record: the first step that needs it
// copies it into the item (adopts it), with the record's counters, and from then on the item rules.
import type { Key } from '../table/keys';
import { getItem, putNewItem, type Item } from '../table/records';
import { singleSendKey, singleSendStateKey } from './keys';
import {
  dispatchAtAttribute,
  failureAttribute,
  reputationPauseReason,
  singleSendCounterNames,
  singleSendStatus,
  waitingAttribute,
  type SendWaiting,
  type SingleSendStatus,
} from './record';

/** The counters a send's reputation was judged from at its last resume. */
export const reputationBaseAttribute = 'reputation_base';

/** The record's attributes the state item holds (an attribute absent from the item is absent from the send). */
export const stateAttributes = ['status', 'updated_at', 'sent_at', waitingAttribute, failureAttribute, dispatchAtAttribute, reputationBaseAttribute] as const;

/** On an adopted send: the counters its record held, which the counter shards add to. */
export const legacyCountsAttribute = 'legacy_counts';

/**
 * The subject an A/B test chose (its winner, or the first subject when the test was skipped): from
 * then on the send's `subject`, shown and mailed, is this one.
 */
export const chosenSubjectAttribute = 'ab_subject';

/** Raised by every change of the send's content, so a container's cached content knows it is stale. */
export const versionAttribute = 'version';

const entity = 'single-send-state';

function pick(item: Item, names: readonly string[]): Item {
  return Object.fromEntries(names.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name]]])));
}

/** The state item of a record about to be stored (create, duplicate). */
export function newStateItem(accountId: number, utr: string, record: Item): Item & Key {
  return { ...singleSendStateKey(accountId, utr), entity, ...pick(record, stateAttributes), [versionAttribute]: 1 };
}

/** The state item a record stored before the state had its own item adopts: its state and its counters. */
function adoptedStateItem(accountId: number, utr: string, record: Item): Item & Key {
  const counts = Object.fromEntries(singleSendCounterNames.map((name) => [name, Number(record[name] ?? 0)]));
  return { ...newStateItem(accountId, utr, record), [versionAttribute]: 0, [legacyCountsAttribute]: counts };
}

/** The record with the state item's attributes in place of its own (a record without a state item is its own state). */
export function withState(record: Item, state: Item | undefined): Item {
  if (!state) return record;
  const merged: Item = { ...record };
  for (const name of stateAttributes) {
    if (state[name] === undefined) delete merged[name];
    else merged[name] = state[name];
  }
  if (typeof state[chosenSubjectAttribute] === 'string') merged.subject = state[chosenSubjectAttribute];
  return merged;
}

/** The state item as stored (no adoption); undefined when there is none. */
export async function getStateItem(accountId: number, utr: string, consistent: boolean): Promise<Item | undefined> {
  return getItem(singleSendStateKey(accountId, utr), { consistent });
}

/**
 * The send's state item, strongly consistent; a send stored before the state had its own item adopts
 * one now (one read of its record, once). Undefined when the send is gone.
 */
export async function readSendState(accountId: number, utr: string): Promise<Item | undefined> {
  const state = await getStateItem(accountId, utr, true);
  if (state) return state;
  const record = await getItem(singleSendKey(accountId, utr), { consistent: true });
  if (!record) return undefined;
  const adopted = adoptedStateItem(accountId, utr, record);
  if (await putNewItem(adopted)) return adopted;
  // Adopted by another caller a moment ago.
  return getStateItem(accountId, utr, true);
}

/** What the pipeline checks before each batch, every second while mailing and before each page: one small read. */
export interface SendState {
  status: SingleSendStatus;
  waiting: SendWaiting | undefined;
  running: boolean;
  /** Paused for its bounces or complaints. */
  paused: boolean;
  version: number;
}

export function sendStateOf(item: Item): SendState {
  const status = Number(item.status ?? singleSendStatus.initiate) as SingleSendStatus;
  const waiting = item[waitingAttribute] as SendWaiting | undefined;
  return {
    status,
    waiting,
    running: status === singleSendStatus.running,
    paused: waiting?.reason === reputationPauseReason,
    version: Number(item[versionAttribute] ?? 0),
  };
}

/** The send's state, strongly consistent; undefined when the send is gone. */
export async function getSendState(accountId: number, utr: string): Promise<SendState | undefined> {
  const item = await readSendState(accountId, utr);
  return item && sendStateOf(item);
}
