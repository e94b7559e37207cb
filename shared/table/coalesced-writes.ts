// Conditional single-item writes from many concurrent callers, sent to DynamoDB together: each caller
// still writes one item and learns its own outcome (written, or its condition failed), but callers
// that write at the same moment share one TransactWriteItems instead of one request each. Under load
// that is most of the cost of a write in this process (the SDK's per-request work) and much of the
// store's. A caller waits no longer than one request: writes go at once while fewer than
// `concurrency` requests are in flight, and gather only behind them.
//
// A transaction is all or nothing, the callers are not: when DynamoDB cancels one, the writes whose
// own condition failed are answered false and the others are sent again without them; a cancellation
// for any other reason (a conflict with another writer, throttling) or any other error sends each
// write on its own, so every caller gets the answer a write of its own would have had.
// A caller may also hand in writes that must go together (a delivery worker's mark of one recipient
// and its claim of the next): they always share one request, or go one after another in their order.
// Transactional writes cost twice the write capacity of plain ones: docs/operations.md.
import { conditionHeld, deleteItem, putItem, updateItem } from './records';
import { actionBytes, cancellationCodes, isTransactionCancelled, transactionLimits, transactWrite, type TransactionAction } from './transactions';

/** One conditional write, as an action of TransactWriteItems (a Put, an Update or a Delete, with its condition). */
export type ConditionalWrite = Required<Pick<TransactionAction, 'Put'>> | Required<Pick<TransactionAction, 'Update'>> | Required<Pick<TransactionAction, 'Delete'>>;

export interface CoalescingOptions {
  /** Writes in one transaction (DynamoDB takes up to 100, and up to 4 MB of items: a group also closes there). */
  maxItems: number;
  /** Requests in flight at once; writes wait for a free one and go together. */
  concurrency: number;
}

interface Waiting {
  write: ConditionalWrite;
  key: string;
  bytes: number;
  settle: (written: boolean) => void;
  fail: (error: unknown) => void;
}

/** The item a write touches: a transaction may touch each item once. */
function itemKey(write: ConditionalWrite): string {
  const target = 'Put' in write ? write.Put.Item : 'Update' in write ? write.Update.Key : write.Delete.Key;
  return JSON.stringify([String(target?.pk), String(target?.sk)]);
}

/** The write as a plain request of its own (billed as a plain write): true when written, false when its condition failed. */
export async function writeAlone(write: ConditionalWrite): Promise<boolean> {
  if ('Put' in write) return conditionHeld(putItem(write.Put));
  if ('Update' in write) return conditionHeld(updateItem(write.Update));
  return conditionHeld(deleteItem(write.Delete));
}

function answerAlone(waiting: Waiting): Promise<void> {
  return writeAlone(waiting.write).then(waiting.settle, waiting.fail);
}

/** Writes that go in one request: a caller's writes asked for together, in their order. */
type Unit = Waiting[];

/** Write a group of units to distinct items: together, then without the writes whose condition failed. */
async function writeGroup(group: Unit[]): Promise<void> {
  let rest = group;
  while (rest.flat().length > 1) {
    const writes = rest.flat();
    try {
      await transactWrite(writes.map((waiting) => waiting.write));
      for (const waiting of writes) waiting.settle(true);
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      // Only conditions failed: nothing was written; those writes are answered, the others go again.
      const onlyConditions = codes?.length === writes.length && codes.includes('ConditionalCheckFailed') && codes.every((code) => code === 'None' || code === 'ConditionalCheckFailed');
      if (isTransactionCancelled(error) && codes && onlyConditions) {
        const failed = new Set(writes.filter((_, index) => codes[index] === 'ConditionalCheckFailed'));
        for (const waiting of failed) waiting.settle(false);
        rest = rest.map((unit) => unit.filter((waiting) => !failed.has(waiting))).filter((unit) => unit.length > 0);
        continue;
      }
      // Anything else is not any one write's answer: each is tried on its own, a unit's in its order.
      await Promise.all(rest.map(async (unit) => {
        for (const waiting of unit) await answerAlone(waiting);
      }));
      return;
    }
  }
  const last = rest.flat()[0];
  if (last) await answerAlone(last);
}

export interface CoalescedWriter {
  /** True when the write was made, false when its condition failed; rejects with the error a write of its own would have thrown. */
  (write: ConditionalWrite): Promise<boolean>;
  /**
   * Writes that go in one request, never apart (as one transaction, or, should each have to go on
   * its own, one after another in their order): one answer each, as above. Writes to one item go
   * one after another.
   */
  together(writes: readonly ConditionalWrite[]): Promise<boolean>[];
}

/** A writer whose conditional writes are coalesced. */
export function coalescedWriter(options: CoalescingOptions): CoalescedWriter {
  const pending: Unit[] = [];
  let inFlight = 0;
  let planned = false;
  /** The next group: whole units, up to `maxItems` writes to distinct items, in order; a unit touching an item already in the group waits for the next. */
  const nextGroup = (): Unit[] => {
    const group: Unit[] = [];
    const keys = new Set<string>();
    let size = 0;
    let bytes = 0;
    for (let index = 0; index < pending.length && size < options.maxItems; ) {
      const unit = pending[index] as Unit;
      const unitBytes = unit.reduce((sum, waiting) => sum + waiting.bytes, 0);
      // A first unit always goes, however large: it cannot wait for a roomier group.
      const full = size > 0 && (size + unit.length > options.maxItems || bytes + unitBytes > transactionLimits.bytes);
      if (full || unit.some((waiting) => keys.has(waiting.key))) {
        index++;
        continue;
      }
      for (const waiting of unit) keys.add(waiting.key);
      size += unit.length;
      bytes += unitBytes;
      group.push(unit);
      pending.splice(index, 1);
    }
    return group;
  };
  const flush = () => {
    planned = false;
    while (inFlight < options.concurrency && pending.length > 0) {
      const group = nextGroup();
      inFlight++;
      void writeGroup(group).finally(() => {
        inFlight--;
        plan();
      });
    }
  };
  // After the writes asked for in the same turn of the event loop, so they can go as one.
  const plan = () => {
    if (planned || pending.length === 0 || inFlight >= options.concurrency) return;
    planned = true;
    void Promise.resolve().then(flush);
  };
  const enqueue = (writes: readonly ConditionalWrite[]): Promise<boolean>[] => {
    const unit: Unit = [];
    const answers = writes.map((write) => new Promise<boolean>((settle, fail) => unit.push({ write, key: itemKey(write), bytes: actionBytes(write), settle, fail })));
    // Two writes to one item cannot share a transaction: they go one after another instead.
    if (new Set(unit.map((waiting) => waiting.key)).size === unit.length) pending.push(unit);
    else pending.push(...unit.map((waiting) => [waiting]));
    plan();
    return answers;
  };
  const writer = (write: ConditionalWrite) => enqueue([write])[0] as Promise<boolean>;
  writer.together = enqueue;
  return writer;
}
