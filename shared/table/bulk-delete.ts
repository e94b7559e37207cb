// All-or-nothing deletes of many records (the spec's bulk-delete operations): every id must exist
// in the account, or nothing is deleted.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batch';
import { db, tableName } from './client';
import { RecordNotFound } from './errors';
import type { Key } from './keys';
import type { Item } from './records';
import { isTransactionCancelled } from './transactions';

export type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of actions per transaction. */
const transactionLimit = 100;

function keyOf(item: Item): string {
  return `${String(item.pk)}|${String(item.sk)}`;
}

/** The items at these keys, or RecordNotFound naming the first missing one. */
export async function getAllOrFail(keys: Key[], entity: string): Promise<Item[]> {
  const found = new Map((await batchGetAll(keys)).map((item) => [keyOf(item), item]));
  return keys.map((key) => {
    const item = found.get(`${key.pk}|${key.sk}`);
    if (!item) throw new RecordNotFound(entity, key.sk);
    return item;
  });
}

/**
 * Delete every item at `keys`, or none when any is missing. `related` adds the writes that must
 * happen with a group of deletions (counter decrements, index entries); it sees the items deleted.
 * Returns the deleted items.
 *
 * Groups of up to 100 actions are each atomic; before any group runs, every key is checked, so a
 * missing id deletes nothing. Only a record deleted concurrently between the check and a later
 * group can leave earlier groups done, and that group then fails as not found.
 */
export async function deleteAllOrNothing(
  keys: Key[],
  entity: string,
  related: (items: Item[]) => TransactionItem[] = () => [],
  relatedPerItem = 0,
): Promise<Item[]> {
  const unique = [...new Map(keys.map((key) => [`${key.pk}|${key.sk}`, key])).values()];
  const items = await getAllOrFail(unique, entity);
  const perGroup = Math.max(1, Math.floor(transactionLimit / (1 + relatedPerItem)) - 1);
  for (let start = 0; start < items.length; start += perGroup) {
    const group = items.slice(start, start + perGroup);
    const actions: TransactionItem[] = [
      ...group.map((item) => ({
        Delete: {
          TableName: tableName(),
          Key: { pk: item.pk, sk: item.sk },
          ConditionExpression: 'attribute_exists(pk)',
        },
      })),
      ...related(group),
    ];
    try {
      await db().send(new TransactWriteCommand({ TransactItems: actions }));
    } catch (error) {
      if (isTransactionCancelled(error)) throw new RecordNotFound(entity, 'bulk');
      throw error;
    }
  }
  return items;
}
