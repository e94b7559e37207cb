// A DynamoDB capacity meter over the official SDK: while switched on, SDK middleware on the shared
// document client asks every call for its consumed capacity (ReturnConsumedCapacity INDEXES) and
// attributes the units to the items the call named, table and each index apart, so a run can say what
// it cost in all and which item took the most. DynamoDB Local bills as DynamoDB does when asked.
//
// DynamoDB reports one figure per table (and per index) for a call, not one per item, so:
// - Get, Put, Update, Delete: exact, the call's units go to its one item.
// - Transactions: `whole` charges every item of the transaction with all of the transaction's units
//   (an upper bound for each item), `share` an even share (what the item costs when all are alike).
// - Batches: an even share of the batch's units to each key named (both bounds), since every item of a
//   batch is billed as a request of its own and the hot path batches only items of one shape.
// - Query and Scan: read units go evenly to the items returned (a page of nothing to its partition).
// Index units of a write go to the index entry of the item written (`<index>` beside its key). A write
// refused by its condition is billed by DynamoDB but reports nothing back: it is not counted here.
// Only for tests and the bench: it lives outside shared/, so no Lambda bundle carries it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareStack } from '@smithy/types';
import { db } from '../../shared/table/client';

type Input = Record<string, unknown>;

interface Consumed {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/** The units one item (or one index entry of it) took. */
export interface ItemCapacity {
  /** `<table>|<pk>|<sk>`, or `<index>|<pk>|<sk>` for the index entry of that item. */
  key: string;
  writeWhole: number;
  writeShare: number;
  readWhole: number;
  readShare: number;
  /** Calls that read or wrote it. */
  reads: number;
  writes: number;
}

/**
 * Partitions of the local stand-ins for AWS services that keep their state in the table: the SES
 * tenant stand-in (read by the local SES sink on every SendEmail naming a tenant) and the local
 * scheduler's jobs. Deployed, that state is SES's and EventBridge Scheduler's, never a DynamoDB unit of
 * the service's, so the meter leaves their calls out of every figure and tallies them apart.
 */
const standInPartitions = [/^LOCAL-TENANT$/, /^SCHEDULE(#|$)/];

const isStandInPartition = (value: unknown) => typeof value === 'string' && standInPartitions.some((pattern) => pattern.test(value));

/** Whether a call is a local stand-in's own: every key it names is in a stand-in partition, or it queries one. */
function standInCall(operation: string, input: Input, parts: { keys: string[] }[]): boolean {
  if (operation === 'Query') return Object.values((input.ExpressionAttributeValues ?? {}) as Input).some((value) => isStandInPartition(text(value)));
  const keys = parts.flatMap((part) => part.keys);
  return keys.length > 0 && keys.every((key) => isStandInPartition(key.split('|')[1]));
}

/**
 * What DynamoDB bills a BatchGetItem, which DynamoDB Local under-reports (one half unit for a whole
 * batch of missing keys, measured): every key is billed as a GetItem of its own, an item found by its
 * size in 4 KB steps and a key not found as the smallest read, half a unit (one when strongly
 * consistent). Items are sized by their JSON, never smaller than DynamoDB's count of them.
 */
function batchGetUnits(input: Input, output: Input): Map<string, number> {
  const units = new Map<string, number>();
  const responses = (output.Responses ?? {}) as Record<string, Input[]>;
  for (const [table, request] of Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Input[]; ConsistentRead?: boolean }>)) {
    const perStep = request.ConsistentRead ? 1 : 0.5;
    const found = responses[table] ?? [];
    const steps = found.reduce((sum, item) => sum + Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item), 'utf8') / 4096)), 0);
    const missing = Math.max(0, (request.Keys?.length ?? 0) - found.length);
    units.set(table, (steps + missing) * perStep);
  }
  return units;
}

const readOperations = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

/** A key attribute as the call carries it: plain (document client) or marshalled (`{S: '...'}`). */
function text(value: unknown): string {
  if (value && typeof value === 'object' && 'S' in value) return String((value as { S: unknown }).S);
  return String(value);
}

function keyText(table: string, key: Input | undefined): string {
  return `${table}|${text(key?.pk)}|${text(key?.sk)}`;
}

/** The keys a call names, by table, with whether it spreads its units evenly (batches) or charges each whole (transactions). */
function itemsOf(operation: string, input: Input, output: Input): { table: string; keys: string[] }[] {
  const table = String(input.TableName ?? '');
  switch (operation) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ table, keys: [keyText(table, input.Key as Input)] }];
    case 'PutItem':
      return [{ table, keys: [keyText(table, input.Item as Input)] }];
    case 'Query':
    case 'Scan': {
      const items = (output.Items as Input[] | undefined) ?? [];
      const found = items.filter((item) => item.pk !== undefined).map((item) => keyText(table, item));
      return [{ table, keys: found.length > 0 ? found : [`${table}|${operation.toLowerCase()}|${String(input.IndexName ?? '')}`] }];
    }
    case 'BatchGetItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Input[] }>).map(([name, request]) => ({
        table: name,
        keys: (request.Keys ?? []).map((key) => keyText(name, key)),
      }));
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item?: Input }; DeleteRequest?: { Key?: Input } }[]>).map(
        ([name, requests]) => ({ table: name, keys: requests.map((request) => keyText(name, request.PutRequest?.Item ?? request.DeleteRequest?.Key)) }),
      );
    case 'TransactWriteItems':
    case 'TransactGetItems': {
      const byTable = new Map<string, string[]>();
      for (const action of (input.TransactItems ?? []) as Record<string, { TableName?: string; Key?: Input; Item?: Input }>[]) {
        const body = Object.values(action)[0];
        const name = String(body?.TableName ?? '');
        byTable.set(name, [...(byTable.get(name) ?? []), keyText(name, body?.Key ?? body?.Item)]);
      }
      return [...byTable].map(([name, keys]) => ({ table: name, keys }));
    }
    default:
      return [{ table, keys: [`${table}|${operation}`] }];
  }
}

export interface CapacityMeter {
  /** Every item and index entry that took units, in no order. */
  items(): ItemCapacity[];
  /** The units of one item (`indexName` for its index entry); zeros when it took none. */
  item(key: { pk: string; sk: string }, indexName?: string): ItemCapacity;
  totals(): { writeUnits: number; readUnits: number; calls: number };
  /** The local stand-ins' own units (SES tenants, the scheduler's jobs), left out of every other figure. */
  standIns(): { writeUnits: number; readUnits: number; calls: number };
  /** Run `work` unmetered (a bench's own reads of what it watches). */
  unmetered<T>(work: () => Promise<T>): Promise<T>;
  /** Switch the meter off; what it counted stays readable. */
  stop(): void;
}

let meters = 0;

/** Switch a meter on over the shared document client (as configured now). */
export function startCapacityMeter(client: { middlewareStack: unknown } = db()): CapacityMeter {
  const stack = client.middlewareStack as MiddlewareStack<object, object>;
  const name = `capacityMeter${++meters}`;
  const items = new Map<string, ItemCapacity>();
  const totals = { writeUnits: 0, readUnits: 0, calls: 0 };
  const standIns = { writeUnits: 0, readUnits: 0, calls: 0 };
  const quiet = new AsyncLocalStorage<boolean>();
  let tableName = '';
  const entry = (key: string): ItemCapacity => {
    let found = items.get(key);
    if (!found) items.set(key, (found = { key, writeWhole: 0, writeShare: 0, readWhole: 0, readShare: 0, reads: 0, writes: 0 }));
    return found;
  };
  const charge = (keys: string[], units: number, read: boolean, whole: boolean, prefix?: string) => {
    for (const key of keys) {
      const target = entry(prefix ? key.replace(/^[^|]*/, prefix) : key);
      const share = units / keys.length;
      if (read) {
        target.readShare += share;
        target.readWhole += whole ? units : share;
      } else {
        target.writeShare += share;
        target.writeWhole += whole ? units : share;
      }
    }
  };
  stack.add(
    (next, context) => async (args) => {
      if (quiet.getStore()) return next(args);
      const operation = String((context as { commandName?: string }).commandName ?? '').replace(/Command$/, '');
      const input = { ...((args as { input: Input }).input ?? {}) };
      input.ReturnConsumedCapacity ??= 'INDEXES';
      const result = await next({ ...args, input } as typeof args);
      const output = (result.output ?? {}) as Input;
      const consumed = output.ConsumedCapacity as Consumed | Consumed[] | undefined;
      const read = readOperations.has(operation);
      const whole = operation.startsWith('Transact');
      const parts = itemsOf(operation, input, output);
      const billedBatch = operation === 'BatchGetItem' ? batchGetUnits(input, output) : undefined;
      if (standInCall(operation, input, parts)) {
        standIns.calls++;
        for (const units of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) standIns[read ? 'readUnits' : 'writeUnits'] += units.CapacityUnits ?? 0;
        return result;
      }
      totals.calls++;
      for (const part of parts) {
        tableName ||= part.table;
        const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).find((c) => c.TableName === part.table);
        if (!units) continue;
        const billed = billedBatch?.get(part.table) ?? 0;
        const tableUnits = Math.max(billed, units.Table?.CapacityUnits ?? units.CapacityUnits ?? 0);
        const indexes = Object.entries(units.GlobalSecondaryIndexes ?? {});
        const total = Math.max(billed, units.CapacityUnits ?? 0);
        if (read) totals.readUnits += total;
        else totals.writeUnits += total;
        for (const key of part.keys) entry(key)[read ? 'reads' : 'writes']++;
        charge(part.keys, tableUnits, read, whole);
        // A Query of an index charges the items it returned, as found through that index.
        for (const [index, { CapacityUnits = 0 }] of indexes) charge(part.keys, CapacityUnits, read, whole, index);
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return {
    items: () => [...items.values()],
    item: (key, indexName) => ({ ...entry(`${indexName ?? tableName}|${key.pk}|${key.sk}`) }),
    totals: () => ({ ...totals }),
    standIns: () => ({ ...standIns }),
    unmetered: (work) => quiet.run(true, work),
    stop: () => stack.remove(name),
  };
}

/** What a send cost per mail, from a meter that watched it: in all, on its busiest item, and its design reads. */
export interface SendCapacity {
  mails: number;
  write_units_per_mail: number;
  read_units_per_mail: number;
  /** The item (or index entry) that took the most write units, charged with whole transactions. */
  hottest_item: { key: string; write_units_per_mail: number; write_units_per_mail_even_share: number };
  /** The same by an even share of each transaction. */
  hottest_item_even_share: { key: string; write_units_per_mail: number };
  /** Reads of the send's own item (its design) and their units. */
  design_reads: number;
  design_reads_per_mail: number;
  design_read_units_per_mail: number;
}

const per = (value: number, mails: number) => Math.round((value / mails) * 1000) / 1000;

/** The figures of one send of `mails` mails, `designKey` naming the item that holds its design. */
export function sendCapacity(meter: CapacityMeter, mails: number, designKey: { pk: string; sk: string }): SendCapacity {
  const items = meter.items();
  const byWhole = [...items].sort((a, b) => b.writeWhole - a.writeWhole)[0];
  const byShare = [...items].sort((a, b) => b.writeShare - a.writeShare)[0];
  const design = meter.item(designKey);
  const totals = meter.totals();
  return {
    mails,
    write_units_per_mail: per(totals.writeUnits, mails),
    read_units_per_mail: per(totals.readUnits, mails),
    hottest_item: { key: byWhole?.key ?? '', write_units_per_mail: per(byWhole?.writeWhole ?? 0, mails), write_units_per_mail_even_share: per(byWhole?.writeShare ?? 0, mails) },
    hottest_item_even_share: { key: byShare?.key ?? '', write_units_per_mail: per(byShare?.writeShare ?? 0, mails) },
    design_reads: design.reads,
    design_reads_per_mail: per(design.reads, mails),
    design_read_units_per_mail: per(design.readShare, mails),
  };
}

/** An item's kind: its key with ids, uuids, emails and numbers taken out, so items of one kind add up. */
export function itemKind(key: string): string {
  return key
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/[^|#]+@[^|#]+/g, '<email>')
    .replace(/\d+/g, 'N');
}

/** Units per mail by item kind (even share of each transaction or batch), most first. */
function unitsByKind(meter: CapacityMeter, mails: number, top: number, units: (item: ItemCapacity) => number): Record<string, number> {
  const kinds = new Map<string, number>();
  for (const item of meter.items()) kinds.set(itemKind(item.key), (kinds.get(itemKind(item.key)) ?? 0) + units(item));
  return Object.fromEntries([...kinds].filter(([, value]) => value > 0).sort(([, a], [, b]) => b - a).slice(0, top).map(([kind, value]) => [kind, per(value, mails)]));
}

/** Write units per mail by item kind, most first. */
export function writesByKind(meter: CapacityMeter, mails: number, top = 12): Record<string, number> {
  return unitsByKind(meter, mails, top, (item) => item.writeShare);
}

/** Read units per mail by item kind (a Query's units spread over the items it returned), most first. */
export function readsByKind(meter: CapacityMeter, mails: number, top = 12): Record<string, number> {
  return unitsByKind(meter, mails, top, (item) => item.readShare);
}
