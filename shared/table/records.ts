// Reading and writing items in the one table: the operations every repository shares, so none of
// them repeats the condition, paging and not-found handling.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch';
import { db, tableName } from './client';
import type { Key } from './keys';

export type Item = Record<string, unknown>;

/** Attributes that exist for the table's sake and never appear in API output. */
const keyAttributes = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expires_at', 'entity'];

export function withoutKeys<T = Item>(item: Item): T {
  const record: Item = {};
  for (const [name, value] of Object.entries(item)) if (!keyAttributes.includes(name)) record[name] = value;
  return record as T;
}

export function isConditionFailure(error: unknown): boolean {
  return (error as Error)?.name === 'ConditionalCheckFailedException';
}

/** The item at `key`; eventually consistent unless `consistent` (a read that decides a conditional write's expected value). */
export async function getItem(key: Key, options: { consistent?: boolean } = {}): Promise<Item | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ...(options.consistent ? { ConsistentRead: true } : {}) }));
  return result.Item;
}

/** The items that exist at these keys (missing ones are absent), 100 keys per BatchGetItem, unprocessed keys retried. */
export function getItems(keys: readonly Key[]): Promise<Item[]> {
  return batchGetAll(keys);
}

/** Put an item whose key must not exist yet; false when it does. */
export async function putNewItem(item: Item & Key): Promise<boolean> {
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
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
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: update,
        ConditionExpression: guard ? `attribute_exists(pk) AND (${guard.condition})` : 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Delete an existing item; the deleted item, or undefined when there was none. */
export async function deleteExistingItem(key: Key): Promise<Item | undefined> {
  try {
    const result = await db().send(
      new DeleteCommand({ TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

export interface Page {
  items: Item[];
  /** DynamoDB's cursor for the next page; undefined on the last. */
  next: Record<string, unknown> | undefined;
}

/** One page of a partition (or of a gsi1 partition), in sort-key order. */
export async function queryPage(options: {
  partition: string;
  index?: 'gsi1';
  beginsWith?: string;
  /** Only sort keys from the first to the second, both included (instead of `beginsWith`). */
  between?: [string, string];
  limit?: number;
  cursor?: Record<string, unknown>;
  descending?: boolean;
  /** Leave out the items that have this attribute (a FilterExpression: a page may then hold fewer than `limit`). */
  without?: string;
}): Promise<Page> {
  const pkName = options.index ? 'gsi1pk' : 'pk';
  const skName = options.index ? 'gsi1sk' : 'sk';
  const range = options.between ? ' AND #sk BETWEEN :low AND :high' : options.beginsWith ? ' AND begins_with(#sk, :prefix)' : '';
  const input: QueryCommandInput = {
    TableName: tableName(),
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
      ...(options.between ? { ':low': options.between[0], ':high': options.between[1] } : options.beginsWith ? { ':prefix': options.beginsWith } : {}),
    },
    Limit: options.limit,
    ExclusiveStartKey: options.cursor,
    ScanIndexForward: !options.descending,
  };
  const result = await db().send(new QueryCommand(input));
  return { items: result.Items ?? [], next: result.LastEvaluatedKey };
}

/** Every item of a partition, page after page. */
export async function queryAll(options: Omit<Parameters<typeof queryPage>[0], 'cursor' | 'limit'>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({ ...options, cursor });
    items.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return items;
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
    const input: QueryCommandInput = {
      TableName: tableName(),
      IndexName: options.index,
      KeyConditionExpression: options.after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: options.after === undefined ? { '#pk': pkName } : { '#pk': pkName, '#sk': skName },
      ExpressionAttributeValues: options.after === undefined ? { ':pk': options.partition } : { ':pk': options.partition, ':after': options.after },
      Limit: options.limit - items.length,
      ExclusiveStartKey: next,
    };
    const result = await db().send(new QueryCommand(input));
    items.push(...(result.Items ?? []));
    next = result.LastEvaluatedKey;
  } while (next && items.length < options.limit);
  return { items, next };
}
