// Integer ids from atomic per-account counters (UpdateItem ADD), never from a Scan or a max().
import { getItem, updateItem } from './records';
import { accountIdCounterKey, idCounterKey } from './counter-keys';
import { type Key } from './keys';

async function increment(key: Key, by: number): Promise<number> {
  const result = await updateItem({
    Key: key,
    UpdateExpression: 'ADD #value :by',
    ExpressionAttributeNames: { '#value': 'value' },
    ExpressionAttributeValues: { ':by': by },
    ReturnValues: 'UPDATED_NEW',
  });
  return Number(result.Attributes?.value);
}

/** The next id of one kind of record in one account. */
export function nextId(accountId: number, entity: string): Promise<number> {
  return increment(idCounterKey(accountId, entity), 1);
}

/** Reserve `count` consecutive ids at once (bulk imports); returns the first. */
export async function reserveIds(accountId: number, entity: string, count: number): Promise<number> {
  const last = await increment(idCounterKey(accountId, entity), count);
  return last - count + 1;
}

export function nextAccountId(): Promise<number> {
  return increment(accountIdCounterKey(), 1);
}

/** The highest account id handed out so far (0 before the first): every account's id is at most this. */
export async function highestAccountId(): Promise<number> {
  return Number((await getItem(accountIdCounterKey()))?.value ?? 0);
}
