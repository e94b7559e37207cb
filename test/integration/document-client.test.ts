// The document client on DynamoDB Local: every kind of value round-trips as the SDK's document client
// would return it, undefined members are dropped, and pages, batches and transactions convert both ways.
import { randomUUID } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../shared/aws/dynamodb';
import { db, tableName } from '../../shared/data/client';

const pk = `test#document-client#${randomUUID()}`;

test('every value kind round-trips, and undefined members are dropped', async () => {
  const item = {
    pk,
    sk: 'kinds',
    text: 'Zoë ✿',
    count: 42,
    ratio: 0.25,
    yes: true,
    nothing: null,
    gone: undefined,
    list: [1, 'two', { three: 3 }],
    map: { nested: { deep: ['a'] }, skipped: undefined },
    tags: new Set(['a', 'b']),
    scores: new Set([1, 2]),
    blob: new Uint8Array([0, 1, 254, 255]),
  };

  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'kinds' } }));

  const { gone: _gone, ...expected } = item;
  expect(Item).toEqual({ ...expected, map: { nested: { deep: ['a'] } }, blob: new Uint8Array([0, 1, 254, 255]) });
  expect(Item && 'gone' in Item).toBe(false);
});

test('update returns the new attributes; query pages carry their last key', async () => {
  await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: ['p1', 'p2', 'p3'].map((sk) => ({ PutRequest: { Item: { pk, sk, n: 0 } } })) } }));

  const updated = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk, sk: 'p1' },
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const page = await db().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': pk, ':p': 'p' }, Limit: 2 }),
  );
  const rest = await db().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': pk, ':p': 'p' }, ExclusiveStartKey: page.LastEvaluatedKey }),
  );

  expect(updated.Attributes).toEqual({ pk, sk: 'p1', n: 1 });
  expect(page.Items?.map((item) => item.sk)).toEqual(['p1', 'p2']);
  expect(page.LastEvaluatedKey).toEqual({ pk, sk: 'p2' });
  expect(rest.Items?.map((item) => item.sk)).toEqual(['p3']);
});

test('batch gets answer in native values; a cancelled transaction names its reasons', async () => {
  const batch = await db().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [{ pk, sk: 'p2' }, { pk, sk: 'p3' }] } } }));
  expect(batch.Responses?.[tableName()]?.map((item) => item.sk).sort()).toEqual(['p2', 'p3']);

  const cancelled = await db()
    .send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { pk, sk: 'p9' } } },
          { ConditionCheck: { TableName: tableName(), Key: { pk, sk: 'p1' }, ConditionExpression: '#n = :two', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':two': 2 } } },
        ],
      }),
    )
    .catch((error: unknown) => error);

  expect(cancelled).toMatchObject({ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] });
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'p9' } }));
  expect(Item).toBeUndefined();
});

test('a failed condition is a ConditionalCheckFailedException and writes nothing', async () => {
  const error = await db()
    .send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk: 'p1' }, ConditionExpression: 'attribute_not_exists(pk)' }))
    .catch((caught: unknown) => caught);

  expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'p1' } }));
  expect(Item).toMatchObject({ n: 1 });
});
