// The shared all-or-nothing delete on DynamoDB Local: records with a companion item each and a count
// on a parent, more of them than one transaction holds; a concurrent change, a concurrent delete and
// a failure in a later group, each made with a real write between the check and the write.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BulkDeleteIncomplete, deleteAllOrNothing, type BulkDeletion, type Companions } from '../../shared/table/bulk-delete';
import { batchWriteAll, putRequest } from '../../shared/table/batch';
import { db, tableName } from '../../shared/table/client';
import { RecordNotFound } from '../../shared/table/errors';
import { entityKey, type Key } from '../../shared/table/keys';
import { getItems, type Item } from '../../shared/table/records';
import { newAccount } from '../support/accounts';

const WIDGET = 'widget';

interface Fixture {
  accountId: number;
  keys: Key[];
  parent: Key;
  /** The companion item of each widget (its "address item"). */
  tagOf: (id: number) => Key;
}

/** `count` widgets (ids 1..count), each with a tag item, counted on one parent item. */
async function widgets(count: number): Promise<Fixture> {
  const { account_id: accountId } = await newAccount();
  const parent = entityKey(accountId, 'widget-parent', 1);
  const tagOf = (id: number) => entityKey(accountId, 'widget-tag', id);
  const keys = Array.from({ length: count }, (_, i) => entityKey(accountId, WIDGET, i + 1));
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...parent, widgets_count: count } }));
  await batchWriteAll([
    ...keys.map((key, i) => putRequest({ ...key, id: i + 1, version: 1 })),
    ...keys.map((_, i) => putRequest({ ...tagOf(i + 1), widget_id: i + 1 })),
  ]);
  return { accountId, keys, parent, tagOf };
}

/** Each widget's tag goes with it and it leaves its parent's count. */
function companionsOf(fixture: Fixture) {
  return (items: Item[]): Companions[] =>
    items.map((item) => ({
      writes: [{ Delete: { TableName: tableName(), Key: fixture.tagOf(Number(item.id)) } }],
      counters: [{ key: fixture.parent, attribute: 'widgets_count', delta: -1 }],
    }));
}

function deletion(fixture: Fixture, plan: BulkDeletion['plan'] = companionsOf(fixture)): BulkDeletion {
  return { accountId: fixture.accountId, entity: WIDGET, keys: fixture.keys, versionAttributes: ['version'], plan };
}

async function parentCount(fixture: Fixture): Promise<number> {
  return Number((await db().send(new GetCommand({ TableName: tableName(), Key: fixture.parent, ConsistentRead: true }))).Item?.widgets_count);
}

async function remainingWidgets(fixture: Fixture): Promise<number> {
  return (await getItems(fixture.keys)).length;
}

async function remainingTags(fixture: Fixture): Promise<number> {
  return (await getItems(fixture.keys.map((_, i) => fixture.tagOf(i + 1)))).length;
}

describe('deleteAllOrNothing', () => {
  it('deletes every record with its companions when they need several transactions, counts merged per transaction', async () => {
    // Prepare: 250 widgets at 2 actions each plus one count: at least 6 transactions.
    const fixture = await widgets(250);

    // Act
    const deleted = await deleteAllOrNothing(deletion(fixture));

    // Assess
    expect(deleted).toHaveLength(250);
    expect(await remainingWidgets(fixture)).toBe(0);
    expect(await remainingTags(fixture)).toBe(0);
    expect(await parentCount(fixture)).toBe(0);
  });

  it('deletes nothing when any key is missing', async () => {
    const fixture = await widgets(150);
    const request = { ...deletion(fixture), keys: [...fixture.keys, entityKey(fixture.accountId, WIDGET, 999)] };

    await expect(deleteAllOrNothing(request)).rejects.toBeInstanceOf(RecordNotFound);

    expect(await remainingWidgets(fixture)).toBe(150);
    expect(await parentCount(fixture)).toBe(150);
  });

  it('reads a record changed after it was planned again and deletes it, instead of answering not found', async () => {
    // Prepare: right after the first plan, widget 140 (in a later transaction) changes its version.
    const fixture = await widgets(150);
    const planned: number[][] = [];
    const plan = async (items: Item[]) => {
      planned.push(items.map((item) => Number(item.id)));
      if (planned.length === 1) {
        await db().send(new UpdateCommand({ TableName: tableName(), Key: fixture.keys[139], UpdateExpression: 'SET version = :two', ExpressionAttributeValues: { ':two': 2 } }));
      }
      return companionsOf(fixture)(items);
    };

    // Act
    const deleted = await deleteAllOrNothing(deletion(fixture, plan));

    // Assess: the changed record's group was planned again, from what it is now.
    expect(deleted).toHaveLength(150);
    expect(planned.length).toBe(2);
    expect(planned[1]).toContain(140);
    expect(planned[1]?.length).toBeLessThan(150);
    expect(await remainingWidgets(fixture)).toBe(0);
    expect(await remainingTags(fixture)).toBe(0);
    expect(await parentCount(fixture)).toBe(0);
  });

  it('counts a record another request deleted between the check and the write as deleted', async () => {
    // Prepare: right after the first plan, widget 140 is deleted (with its tag and count) by someone else.
    const fixture = await widgets(150);
    let plans = 0;
    const plan = async (items: Item[]) => {
      if (++plans === 1) {
        await db().send(new DeleteCommand({ TableName: tableName(), Key: fixture.keys[139] }));
        await db().send(new DeleteCommand({ TableName: tableName(), Key: fixture.tagOf(140) }));
        await db().send(new UpdateCommand({ TableName: tableName(), Key: fixture.parent, UpdateExpression: 'ADD widgets_count :minus', ExpressionAttributeValues: { ':minus': -1 } }));
      }
      return companionsOf(fixture)(items);
    };

    // Act
    const deleted = await deleteAllOrNothing(deletion(fixture, plan));

    // Assess: success; the record deleted elsewhere is not among those deleted here, and counted once.
    expect(deleted.map((item) => Number(item.id))).not.toContain(140);
    expect(deleted).toHaveLength(149);
    expect(await remainingWidgets(fixture)).toBe(0);
    expect(await parentCount(fixture)).toBe(0);
  });

  it('fails a later group that keeps failing without claiming nothing was deleted; the same request sent again finishes', async () => {
    // Prepare: widget 150's tag write is refused (its condition never holds) until the tag is repaired.
    const fixture = await widgets(150);
    const plan = (items: Item[]) =>
      companionsOf(fixture)(items).map((companions, index) =>
        Number(items[index]?.id) === 150
          ? { ...companions, writes: [{ ConditionCheck: { TableName: tableName(), Key: fixture.tagOf(150), ConditionExpression: 'repaired = :yes', ExpressionAttributeValues: { ':yes': true } } }] }
          : companions,
      );

    // Act: the first attempt stops at widget 150's group.
    const first = await deleteAllOrNothing(deletion(fixture, plan)).catch((error: unknown) => error);

    // Assess: not a not-found answer; the groups before stay deleted (each whole).
    expect(first).toBeInstanceOf(BulkDeleteIncomplete);
    expect(first).not.toBeInstanceOf(RecordNotFound);
    const left = await remainingWidgets(fixture);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(150);
    expect(await parentCount(fixture)).toBe(left);

    // Act: the cause is repaired and the same request is sent again.
    await db().send(new UpdateCommand({ TableName: tableName(), Key: fixture.tagOf(150), UpdateExpression: 'SET repaired = :yes', ExpressionAttributeValues: { ':yes': true } }));
    const second = await deleteAllOrNothing(deletion(fixture, plan));

    // Assess: the ids the first attempt deleted count as deleted; the rest are deleted now.
    expect(second).toHaveLength(left);
    expect(await remainingWidgets(fixture)).toBe(0);
    expect(await parentCount(fixture)).toBe(0);
    // Once finished, the request's receipt is gone: sent a third time, the ids are not found.
    await expect(deleteAllOrNothing(deletion(fixture, plan))).rejects.toBeInstanceOf(RecordNotFound);
  }, 60_000);

  it('does not let a different request resume: ids deleted earlier are still not found', async () => {
    const fixture = await widgets(3);
    await deleteAllOrNothing({ ...deletion(fixture), keys: fixture.keys.slice(0, 1) });

    await expect(deleteAllOrNothing(deletion(fixture))).rejects.toBeInstanceOf(RecordNotFound);
    expect(await remainingWidgets(fixture)).toBe(2);
  });
});
