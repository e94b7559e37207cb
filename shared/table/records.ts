// Reading and writing items in the one table: the operations every repository shares, so none of
// them repeats the table's name, the condition-failure handling, paging or not-found handling.
// Repositories say what to read or write (the request's own input, less the table); the condition
// failures they expect come back as values, every other error is thrown.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type DeleteCommandOutput,
  type PutCommandInput,
  type PutCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch';
import { db, tableName } from './client';
import type { Key } from './keys';
import { cancellationCodes } from './transactions';

export type Item = Record<string, unknown>;

/** Attributes that exist for the table's sake and never appear in API output. */
const keyAttributes = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expires_at', 'entity'];

export function withoutKeys<T = Item>(item: Item): T {
  const record: Item = {};
  for (const [name, value] of Object.entries(item)) if (!keyAttributes.includes(name)) record[name] = value;
  return record as T;
}

/** A request's input without the table: every request goes to the one table, named here. */
export type OnTable<Input> = Omit<Input, 'TableName'>;

export function isConditionFailure(error: unknown): boolean {
  return (error as Error)?.name === 'ConditionalCheckFailedException';
}

/**
 * Whether DynamoDB refused the write because a condition failed: a single write's
 * ConditionalCheckFailedException, or a transaction cancelled with a failed condition (that of the
 * action at index `action`, when given).
 */
function conditionFailed(error: unknown, action?: number): boolean {
  if (isConditionFailure(error)) return true;
  const codes = cancellationCodes(error);
  return action === undefined ? codes?.includes('ConditionalCheckFailed') === true : codes?.[action] === 'ConditionalCheckFailed';
}

/** The write's output, or undefined when its condition failed; any other error is thrown. */
export async function unlessConditionFails<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (conditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Whether the write (a single write or a transaction) was made: false when its condition failed (in a
 * transaction, that of any action, or of the action at index `action` when given); any other error is thrown.
 */
export async function conditionHeld(write: Promise<unknown>, options: { action?: number } = {}): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (conditionFailed(error, options.action)) return false;
    throw error;
  }
}

/**
 * The item at `key`; eventually consistent unless `consistent` (a read that decides a conditional
 * write's expected value); only the attributes named in `projection` when given (each is aliased, so
 * reserved words such as `status` need no care).
 */
export async function getItem(key: Key, options: { consistent?: boolean; projection?: readonly string[] } = {}): Promise<Item | undefined> {
  const names = options.projection?.map((name, i) => [`#p${i}`, name] as const);
  const result = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: key,
      ...(options.consistent ? { ConsistentRead: true } : {}),
      ...(names === undefined ? {} : { ProjectionExpression: names.map(([alias]) => alias).join(', '), ExpressionAttributeNames: Object.fromEntries(names) }),
    }),
  );
  return result.Item;
}

/** PutItem on the table. */
export function putItem(input: OnTable<PutCommandInput>): Promise<PutCommandOutput> {
  return db().send(new PutCommand({ TableName: tableName(), ...input }));
}

/** UpdateItem on the table. */
export function updateItem(input: OnTable<UpdateCommandInput>): Promise<UpdateCommandOutput> {
  return db().send(new UpdateCommand({ TableName: tableName(), ...input }));
}

/** DeleteItem on the table. */
export function deleteItem(input: OnTable<DeleteCommandInput>): Promise<DeleteCommandOutput> {
  return db().send(new DeleteCommand({ TableName: tableName(), ...input }));
}

/** One Query of the table (or of an index): one page, with DynamoDB's cursor for the next. */
export function query(input: OnTable<QueryCommandInput>): Promise<QueryCommandOutput> {
  return db().send(new QueryCommand({ TableName: tableName(), ...input }));
}

/** Every item a Query matches, page after page (each from the last one's LastEvaluatedKey). */
export async function queryEvery(input: OnTable<Omit<QueryCommandInput, 'ExclusiveStartKey'>>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await query({ ...input, ExclusiveStartKey: cursor });
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}

/** The items that exist at these keys (missing ones are absent), 100 keys per BatchGetItem, unprocessed keys retried. */
export function getItems(keys: readonly Key[]): Promise<Item[]> {
  return batchGetAll(keys);
}

/** Put an item whose key must not exist yet; false when it does. */
export function putNewItem(item: Item & Key): Promise<boolean> {
  return conditionHeld(putItem({ Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
}

/** An extra condition an update must meet, beside the item existing (e.g. a state it must be in). */
export interface UpdateGuard {
  condition: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** `SET` of every attribute in `changes`, with placeholders added to `names` and `values`. */
export function setExpression(changes: Item, names: Record<string, string>, values: Record<string, unknown>): string {
  const sets = Object.entries(changes).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  return `SET ${sets.join(', ')}`;
}

/**
 * Set attributes on an existing item (that also meets `guard`, when given); undefined when it does
 * not exist or the guard fails. Returns the item after the change.
 */
export async function updateExistingItem(key: Key, changes: Item, guard?: UpdateGuard): Promise<Item | undefined> {
  const names: Record<string, string> = { ...guard?.names };
  const values: Record<string, unknown> = { ...guard?.values };
  const update = setExpression(changes, names, values);
  const result = await unlessConditionFails(
    updateItem({
      Key: key,
      UpdateExpression: update,
      ConditionExpression: guard ? `attribute_exists(pk) AND (${guard.condition})` : 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return result?.Attributes;
}

/** Delete an existing item; the deleted item, or undefined when there was none. */
export async function deleteExistingItem(key: Key): Promise<Item | undefined> {
  return (await unlessConditionFails(deleteItem({ Key: key, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' })))?.Attributes;
}

export interface Page {
  items: Item[];
  /** DynamoDB's cursor for the next page; undefined on the last. */
  next: Record<string, unknown> | undefined;
}

/** Which part of a partition (or of a gsi1 partition) a Query reads, and how. */
export interface PartitionQuery {
  partition: string;
  index?: 'gsi1';
  beginsWith?: string;
  /** Only sort keys from the first to the second, both included (instead of `beginsWith`). */
  between?: [string, string];
  /** Only sort keys below this one (instead of `beginsWith` and `between`). */
  below?: string;
  limit?: number;
  cursor?: Record<string, unknown>;
  descending?: boolean;
  /** Leave out the items that have this attribute (a FilterExpression: a page may then hold fewer than `limit`). */
  without?: string;
}

function partitionQuery(options: PartitionQuery): OnTable<QueryCommandInput> {
  const pkName = options.index ? 'gsi1pk' : 'pk';
  const skName = options.index ? 'gsi1sk' : 'sk';
  const range = options.between ? ' AND #sk BETWEEN :low AND :high' : options.beginsWith ? ' AND begins_with(#sk, :prefix)' : options.below !== undefined ? ' AND #sk < :below' : '';
  return {
    IndexName: options.index,
    KeyConditionExpression: `#pk = :pk${range}`,
    ...(options.without === undefined ? {} : { FilterExpression: 'attribute_not_exists(#without)' }),
    ExpressionAttributeNames: {
      '#pk': pkName,
      ...(range ? { '#sk': skName } : {}),
      ...(options.without === undefined ? {} : { '#without': options.without }),
    },
    ExpressionAttributeValues: {
      ':pk': options.partition,
      ...(options.between
        ? { ':low': options.between[0], ':high': options.between[1] }
        : options.beginsWith
          ? { ':prefix': options.beginsWith }
          : options.below !== undefined
            ? { ':below': options.below }
            : {}),
    },
    Limit: options.limit,
    ExclusiveStartKey: options.cursor,
    ScanIndexForward: !options.descending,
  };
}

/** One page of a partition (or of a gsi1 partition), in sort-key order. */
export async function queryPage(options: PartitionQuery): Promise<Page> {
  const result = await query(partitionQuery(options));
  return { items: result.Items ?? [], next: result.LastEvaluatedKey };
}

/** Every item of a partition, page after page. */
export function queryAll(options: Omit<PartitionQuery, 'cursor' | 'limit'>): Promise<Item[]> {
  return queryEvery(partitionQuery(options));
}

/**
 * One page of a partition (or of a gsi1 partition) in sort-key order, from just after the sort key
 * `after` (from the start when undefined): a position needs no LastEvaluatedKey, so a reader can
 * resume from the last key it saw (sharded partitions are read this way, see shard-merge.ts).
 * DynamoDB ends a Query at 1 MB read, which large items reach well before `limit`: the page goes on
 * from its LastEvaluatedKey until it holds `limit` items, so fewer means the partition is read to its end.
 */
export async function queryPageAfter(options: { partition: string; index?: 'gsi1'; after?: string; limit: number }): Promise<Page> {
  const pkName = options.index ? 'gsi1pk' : 'pk';
  const skName = options.index ? 'gsi1sk' : 'sk';
  const items: Item[] = [];
  let next: Record<string, unknown> | undefined;
  do {
    const result = await query({
      IndexName: options.index,
      KeyConditionExpression: options.after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: options.after === undefined ? { '#pk': pkName } : { '#pk': pkName, '#sk': skName },
      ExpressionAttributeValues: options.after === undefined ? { ':pk': options.partition } : { ':pk': options.partition, ':after': options.after },
      Limit: options.limit - items.length,
      ExclusiveStartKey: next,
    });
    items.push(...(result.Items ?? []));
    next = result.LastEvaluatedKey;
  } while (next && items.length < options.limit);
  return { items, next };
}
