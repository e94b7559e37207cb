// What a piece of work costs in DynamoDB capacity units: every command sent through the document
// client while it runs asks DynamoDB for ReturnConsumedCapacity INDEXES, and the units it reports
// (table and indexes, reads and writes) are summed. DynamoDB Local reports single-item writes, Queries
// and Gets as the service does, but a whole TransactWriteItems as if it held one item: transactions
// are not measured with it.
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { db } from '../../shared/table/client';

export interface Capacity {
  readUnits: number;
  writeUnits: number;
  /** Write units on the table's items alone, and on the gsi1 index. */
  tableWriteUnits: number;
  indexWriteUnits: number;
  commands: number;
  /** The largest write units one command reported. */
  largestWrite: number;
}

let meterId = 0;

/** Commands whose units are write units (DynamoDB reports CapacityUnits, without the read/write split, for a single kind). */
const writeCommands = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

function add(capacity: Capacity, consumed: ConsumedCapacity, writing: boolean): void {
  const total = Number(consumed.CapacityUnits ?? 0);
  if (!writing) {
    capacity.readUnits += total;
    return;
  }
  capacity.writeUnits += total;
  capacity.tableWriteUnits += Number(consumed.Table?.CapacityUnits ?? 0);
  for (const index of Object.values(consumed.GlobalSecondaryIndexes ?? {})) capacity.indexWriteUnits += Number(index.CapacityUnits ?? 0);
}

/** Run `work` and sum the capacity every command it sends reports. */
export async function measured<T>(work: () => Promise<T>): Promise<{ capacity: Capacity; result: T }> {
  const capacity: Capacity = { readUnits: 0, writeUnits: 0, tableWriteUnits: 0, indexWriteUnits: 0, commands: 0, largestWrite: 0 };
  const name = `consumedCapacity${++meterId}`;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const writing = writeCommands.has(String(context.commandName));
      capacity.commands++;
      const reported = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      let units = 0;
      for (const consumed of Array.isArray(reported) ? reported : reported ? [reported] : []) {
        add(capacity, consumed, writing);
        units += Number(consumed.CapacityUnits ?? 0);
      }
      if (writing) capacity.largestWrite = Math.max(capacity.largestWrite, units);
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return { capacity, result: await work() };
  } finally {
    client.middlewareStack.remove(name);
  }
}
