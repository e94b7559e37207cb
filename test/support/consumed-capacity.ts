// What a piece of work costs in DynamoDB capacity units: every command sent through the document
// client while it runs asks DynamoDB for ReturnConsumedCapacity INDEXES, and the units it reports
// (table and indexes, reads and writes) are summed. DynamoDB Local reports them as the service does.
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

function add(capacity: Capacity, consumed: ConsumedCapacity): void {
  const read = Number(consumed.ReadCapacityUnits ?? 0);
  const write = Number(consumed.WriteCapacityUnits ?? 0);
  // A report without the read/write split (a Query on DynamoDB Local) is reads for reads, writes for writes.
  const total = Number(consumed.CapacityUnits ?? 0);
  capacity.readUnits += read;
  capacity.writeUnits += write;
  if (read === 0 && write === 0 && total > 0) capacity.readUnits += total;
  capacity.tableWriteUnits += Number(consumed.Table?.WriteCapacityUnits ?? 0);
  for (const index of Object.values(consumed.GlobalSecondaryIndexes ?? {})) capacity.indexWriteUnits += Number(index.WriteCapacityUnits ?? 0);
  capacity.largestWrite = Math.max(capacity.largestWrite, write);
}

/** Run `work` and sum the capacity every command it sends reports. */
export async function measured<T>(work: () => Promise<T>): Promise<{ capacity: Capacity; result: T }> {
  const capacity: Capacity = { readUnits: 0, writeUnits: 0, tableWriteUnits: 0, indexWriteUnits: 0, commands: 0, largestWrite: 0 };
  const name = `consumedCapacity${++meterId}`;
  const client = db();
  client.middlewareStack.add(
    (next) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      capacity.commands++;
      const reported = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      for (const consumed of Array.isArray(reported) ? reported : reported ? [reported] : []) add(capacity, consumed);
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
