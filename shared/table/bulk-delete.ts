// All-or-nothing deletes of many records (the spec's bulk-delete operations): every id must exist
// in the account, or nothing is deleted; when all exist, all are deleted, however many transactions
// that takes. Each record goes with everything it owns in one transaction, so no record is ever
// half-deleted; a transaction cancelled by a concurrent write is re-read and retried.
import { createHash, randomUUID } from 'node:crypto';
import { currentTime } from '../time';
import { batchGetAll } from './batch';
import { RecordNotFound } from './errors';
import { entityPartition, type Key } from './keys';
import { deleteItem, getItem, putItem, type Item } from './records';
import { itemBytes } from './item-size';
import { actionBytes, isTransactionCancelled, transactionLimits, transactWrite, type TransactionAction, type TransactionItem } from './transactions';

/** Kept for the modules that still import it from here; it lives in transactions.ts. */
export type { TransactionItem };

/** DynamoDB's limit of actions per transaction. */
export const transactionLimit = transactionLimits.actions;

/** A change of a count kept on another item (a parent's counter): the changes of one transaction are merged. */
export interface CounterChange {
  key: Key;
  attribute: string;
  delta: number;
  /** The counter is an item of its own that may not exist yet: the change creates it (else it must exist). */
  createMissing?: boolean;
}

/** What goes with deleting one record, in the same transaction: the items it owns and the counts it is in. */
export interface Companions {
  /** Writes of other items (their deletes, or rewrites conditioned on what was read). */
  writes?: TransactionAction[];
  counters?: CounterChange[];
}

export interface BulkDeletion {
  accountId: number;
  /** The records' kind, for RecordNotFound and for the receipt of an interrupted request. */
  entity: string;
  keys: readonly Key[];
  /**
   * Attributes of the record whose values its companions were planned from: the record's delete
   * is conditioned on them, so a record changed since it was read is read again and replanned.
   */
  versionAttributes?: readonly string[];
  /** The companions of each record (in the order given), from the items as just read. */
  plan?: (items: Item[]) => Promise<Companions[]> | Companions[];
}

/** A group still failed after its retries; the groups before it stay deleted. */
export class BulkDeleteIncomplete extends Error {
  constructor(
    readonly entity: string,
    readonly deleted: number,
    readonly remaining: number,
    cause: unknown,
  ) {
    super(`bulk delete of ${entity} stopped after ${deleted} records with ${remaining} left`, { cause });
    this.name = 'BulkDeleteIncomplete';
  }
}

/** Attempts per transaction group (conflicts and faults alike) before the request gives up. */
const maxGroupAttempts = 8;

/** How long a receipt lets the same request, sent again, finish an interrupted delete. */
const receiptSeconds = 24 * 60 * 60;

interface PlannedRecord {
  item: Item;
  actions: TransactionAction[];
  counters: CounterChange[];
}

function keyText(key: Key | Item): string {
  return `${String(key.pk)}|${String(key.sk)}`;
}

function pause(attempt: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random())));
}

/** The items at these keys, read strongly consistently; missing ones are absent. */
async function readCurrent(keys: readonly Key[]): Promise<Map<string, Item>> {
  return new Map((await batchGetAll(keys, { consistentRead: true })).map((item) => [keyText(item), item]));
}

/** The items at these keys, or RecordNotFound naming the first missing one. */
export async function getAllOrFail(keys: Key[], entity: string): Promise<Item[]> {
  const found = await readCurrent([...new Map(keys.map((key) => [keyText(key), key])).values()]);
  return keys.map((key) => {
    const item = found.get(keyText(key));
    if (!item) throw new RecordNotFound(entity, key.sk);
    return item;
  });
}

/**
 * The item that marks a delete of these exact records as begun: one request's ids, sent again,
 * finish what an interrupted attempt started instead of finding the ids it already deleted missing.
 */
function receiptKey(accountId: number, entity: string, keys: readonly Key[]): Key {
  const digest = createHash('sha256').update(keys.map(keyText).sort().join('\n')).digest('hex');
  return { pk: entityPartition(accountId, 'bulk-delete'), sk: `${entity}#${digest}` };
}

/** Whether the receipt exists and has not expired (TTL removes expired items only eventually). */
async function receiptHolds(receipt: Key): Promise<boolean> {
  const item = await getItem(receipt, { consistent: true });
  return item !== undefined && Number(item.expires_at) > currentTime().getTime() / 1000;
}

async function plan(request: BulkDeletion, items: Item[]): Promise<PlannedRecord[]> {
  const companions = request.plan ? await request.plan(items) : [];
  const versioned = request.versionAttributes ?? [];
  return items.map((item, index) => {
    const names = Object.fromEntries(versioned.map((name, i) => [`#v${i}`, name]));
    const values = Object.fromEntries(versioned.flatMap((name, i) => (item[name] === undefined ? [] : [[`:v${i}`, item[name]]])));
    const checks = versioned.map((name, i) => (item[name] === undefined ? `attribute_not_exists(#v${i})` : `#v${i} = :v${i}`));
    const own: TransactionAction = {
      Delete: {
        Key: { pk: item.pk, sk: item.sk },
        ConditionExpression: ['attribute_exists(pk)', ...checks].join(' AND '),
        ...(versioned.length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      },
    };
    return { item, actions: [own, ...(companions[index]?.writes ?? [])], counters: companions[index]?.counters ?? [] };
  });
}

/** The bytes a counter's update counts toward a transaction's 4 MB: its key, its names and deltas. */
function counterBytes(changes: CounterChange[]): number {
  const first = changes[0];
  if (!first) return 0;
  return itemBytes({ ...first.key }) + changes.reduce((sum, change) => sum + Buffer.byteLength(change.attribute) + 21, 0);
}

/** The items a record's own actions write (DynamoDB refuses a transaction with two actions on one item). */
function writtenKeys(record: PlannedRecord): string[] {
  return record.actions.map((action) => keyText((action.Put?.Item ?? (action.Update ?? action.Delete ?? action.ConditionCheck)?.Key ?? {}) as Item));
}

/**
 * The records packed into transactions of at most 100 actions and 4 MB, each record whole in one of
 * them, and no two records of one transaction writing the same item (two entries of one address share its state).
 */
function pack(records: PlannedRecord[]): PlannedRecord[][] {
  const groups: PlannedRecord[][] = [];
  let group: PlannedRecord[] = [];
  let written = new Set<string>();
  // The group's own actions and their bytes, and its counter changes by counter: one update each.
  let actions = 0;
  let bytes = 0;
  let counters = new Map<string, CounterChange[]>();
  const withChanges = (byKey: Map<string, CounterChange[]>, changes: CounterChange[]) => {
    const merged = new Map(byKey);
    for (const change of changes) merged.set(keyText(change.key), [...(merged.get(keyText(change.key)) ?? []), change]);
    return merged;
  };
  const fits = (ownActions: number, ownBytes: number, byKey: Map<string, CounterChange[]>) =>
    ownActions + byKey.size <= transactionLimits.actions && ownBytes + [...byKey.values()].reduce((sum, changes) => sum + counterBytes(changes), 0) <= transactionLimits.bytes;
  for (const record of records) {
    const recordBytes = record.actions.reduce((sum, action) => sum + actionBytes(action), 0);
    if (!fits(record.actions.length, recordBytes, withChanges(new Map(), record.counters))) {
      throw new Error(`deleting one ${keyText(record.item)} needs ${record.actions.length} actions of ${recordBytes} bytes, over the transaction limits`);
    }
    const keys = writtenKeys(record);
    const overlaps = keys.some((key) => written.has(key));
    if (group.length > 0 && (overlaps || !fits(actions + record.actions.length, bytes + recordBytes, withChanges(counters, record.counters)))) {
      groups.push(group);
      group = [];
      actions = 0;
      bytes = 0;
      counters = new Map();
      written = new Set();
    }
    for (const key of keys) written.add(key);
    group.push(record);
    actions += record.actions.length;
    bytes += recordBytes;
    counters = withChanges(counters, record.counters);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** One group's actions: the records' own writes, then one update per counter with the group's changes summed. */
function transaction(group: PlannedRecord[]): TransactionAction[] {
  const sums = new Map<string, { key: Key; deltas: Map<string, number>; createMissing: boolean }>();
  for (const change of group.flatMap((record) => record.counters)) {
    const entry = sums.get(keyText(change.key)) ?? { key: change.key, deltas: new Map<string, number>(), createMissing: change.createMissing === true };
    entry.deltas.set(change.attribute, (entry.deltas.get(change.attribute) ?? 0) + change.delta);
    sums.set(keyText(change.key), entry);
  }
  const counterUpdates: TransactionAction[] = [...sums.values()].map(({ key, deltas, createMissing }) => {
    const attributes = [...deltas];
    return {
      Update: {
        Key: { pk: key.pk, sk: key.sk },
        UpdateExpression: `ADD ${attributes.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
        // A count on a missing parent would create a ghost item.
        ...(createMissing ? {} : { ConditionExpression: 'attribute_exists(pk)' }),
        ExpressionAttributeNames: Object.fromEntries(attributes.map(([name], i) => [`#c${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(attributes.map(([, delta], i) => [`:c${i}`, delta])),
      },
    };
  });
  return [...group.flatMap((record) => record.actions), ...counterUpdates];
}

/**
 * Commit one group. A cancelled transaction (a concurrent write met one of its items, or a record
 * changed since it was read) re-reads the group: a record now gone was deleted by someone else,
 * which is what was asked; the others are replanned from what they are now and retried, in as many
 * transactions as they now need. Other faults are retried with backoff too. Answers the records deleted here.
 */
async function commitGroup(request: BulkDeletion, group: PlannedRecord[]): Promise<Item[]> {
  // One idempotency token per planned transaction: a retry after a fault that hid a commit is a no-op.
  const tokened = (records: PlannedRecord[]) => ({ records, token: randomUUID() });
  let pending = [tokened(group)];
  const deleted: Item[] = [];
  for (let attempt = 1; pending.length > 0; ) {
    const current = pending[0] as { records: PlannedRecord[]; token: string };
    try {
      await transactWrite(transaction(current.records), { token: current.token });
      deleted.push(...current.records.map((record) => record.item));
      pending = pending.slice(1);
      continue;
    } catch (error) {
      if (attempt >= maxGroupAttempts) throw error;
      await pause(attempt++);
      if (!isTransactionCancelled(error)) continue;
    }
    const found = await readCurrent(current.records.map((record) => ({ pk: String(record.item.pk), sk: String(record.item.sk) })));
    const remaining = current.records.map((record) => found.get(keyText(record.item))).filter((item): item is Item => item !== undefined);
    const replanned = remaining.length > 0 ? pack(await plan(request, remaining)).map(tokened) : [];
    pending = [...replanned, ...pending.slice(1)];
  }
  return deleted;
}

/**
 * Delete every record at `keys`, or none when any is missing (RecordNotFound). Answers the records
 * deleted, as they were.
 *
 * Every key is read before anything is written, so a missing id deletes nothing. Then the records
 * are deleted a transaction at a time, each with its companions and counter changes; a cancelled
 * group is re-read and retried (see commitGroup). When more than one record is to go, a receipt
 * is written first (kept a day): should a group still fail after its retries (the request
 * then fails with BulkDeleteIncomplete, never RecordNotFound, as earlier groups stay deleted), the
 * same request sent again counts the ids the first attempt deleted as deleted and finishes the rest.
 */
export async function deleteAllOrNothing(request: BulkDeletion): Promise<Item[]> {
  const keys = [...new Map(request.keys.map((key) => [keyText(key), key])).values()];
  const receipt = receiptKey(request.accountId, request.entity, keys);
  const found = await readCurrent(keys);
  const missing = keys.find((key) => !found.has(keyText(key)));
  const resuming = missing !== undefined && (await receiptHolds(receipt));
  if (missing && !resuming) throw new RecordNotFound(request.entity, missing.sk);

  const items = keys.map((key) => found.get(keyText(key))).filter((item): item is Item => item !== undefined);
  const groups = items.length > 0 ? pack(await plan(request, items)) : [];
  // With more than one record, a replanned group may take more than one transaction: any request
  // that can end half done leaves a receipt.
  const receipted = items.length > 1 || resuming;
  if (receipted && !resuming) {
    const expiresAt = Math.floor(currentTime().getTime() / 1000) + receiptSeconds;
    await putItem({ Item: { ...receipt, entity: 'bulk-delete-receipt', expires_at: expiresAt } });
  }
  const deleted: Item[] = [];
  for (const [index, group] of groups.entries()) {
    try {
      deleted.push(...(await commitGroup(request, group)));
    } catch (error) {
      const remaining = groups.slice(index).reduce((sum, rest) => sum + rest.length, 0);
      throw new BulkDeleteIncomplete(request.entity, deleted.length, remaining, error);
    }
  }
  if (receipted) await deleteItem({ Key: receipt });
  return deleted;
}
