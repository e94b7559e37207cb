// Coalesced conditional writes (shared/table/coalesced-writes.ts), on DynamoDB Local: writes asked for
// together share transactions, yet each caller gets its own write's answer: a failed condition fails
// only its own write, a second write to one item waits for the next request, and an error that is no
// one write's answer sends each write on its own.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/table/client';
import { coalescedWriter, type ConditionalWrite } from '../../shared/table/coalesced-writes';

/** DynamoDB requests by command while `work` runs. */
async function requestsDuring(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const name = `countRequests-${randomUUID()}`;
  db().middlewareStack.add(
    (next, context) => (args) => {
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      counts[command] = (counts[command] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return counts;
}

const key = (run: string, n: number) => ({ pk: `coalesce-test#${run}#${n}`, sk: 'ITEM' });

function putNew(run: string, n: number, state = 'claimed'): ConditionalWrite {
  return { Put: { TableName: tableName(), Item: { ...key(run, n), state }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

function markSent(run: string, n: number, table = tableName()): ConditionalWrite {
  return {
    Update: {
      TableName: table,
      Key: key(run, n),
      UpdateExpression: 'SET #state = :sent',
      ConditionExpression: '#state = :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':sent': 'sent', ':claimed': 'claimed' },
    },
  };
}

async function stateOf(run: string, n: number): Promise<unknown> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key(run, n), ConsistentRead: true }));
  return result.Item?.state;
}

describe('coalesced conditional writes', () => {
  test('writes asked for together go in shared transactions, each answered and written', async () => {
    // Prepare
    const write = coalescedWriter({ maxItems: 25, concurrency: 2 });
    const run = randomUUID();

    // Act: 40 writes in one turn: a group of 25 and one of 15.
    let answers: boolean[] = [];
    const requests = await requestsDuring(async () => {
      answers = await Promise.all(Array.from({ length: 40 }, (_, n) => write(putNew(run, n))));
    });

    // Assess
    expect(answers).toEqual(Array.from({ length: 40 }, () => true));
    expect(requests).toEqual({ TransactWriteItems: 2 });
    expect(await Promise.all([0, 24, 25, 39].map((n) => stateOf(run, n)))).toEqual(['claimed', 'claimed', 'claimed', 'claimed']);
  });

  test('a failed condition fails only its own write; the others in its transaction are written', async () => {
    // Prepare: item 2 exists already (a put fails), item 5 is not `claimed` (a mark fails).
    const write = coalescedWriter({ maxItems: 25, concurrency: 1 });
    const run = randomUUID();
    await Promise.all([write(putNew(run, 2, 'existing')), write(putNew(run, 3)), write(putNew(run, 4)), write(putNew(run, 5, 'uncertain'))]);

    // Act
    const answers = await Promise.all([write(putNew(run, 1)), write(putNew(run, 2)), write(markSent(run, 3)), write(markSent(run, 4)), write(markSent(run, 5)), write(putNew(run, 6))]);

    // Assess
    expect(answers).toEqual([true, false, true, true, false, true]);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((n) => stateOf(run, n)))).toEqual(['claimed', 'existing', 'sent', 'sent', 'uncertain', 'claimed']);
  });

  test('two writes to one item never share a transaction: the second sees the first', async () => {
    // Prepare
    const write = coalescedWriter({ maxItems: 25, concurrency: 1 });
    const run = randomUUID();

    // Act: a claim and, in the same turn, its mark, beside other writes.
    const answers = await Promise.all([write(putNew(run, 1)), write(putNew(run, 2)), write(markSent(run, 1)), write(putNew(run, 1))]);

    // Assess
    expect(answers).toEqual([true, true, true, false]);
    expect(await stateOf(run, 1)).toBe('sent');
    expect(await stateOf(run, 2)).toBe('claimed');
  });

  test('an error that is no one write\'s answer sends each write on its own: only the bad one fails', async () => {
    // Prepare
    const write = coalescedWriter({ maxItems: 25, concurrency: 1 });
    const run = randomUUID();
    await write(putNew(run, 2));

    // Act: one write names a table that does not exist, which refuses the whole transaction.
    const answers = await Promise.allSettled([write(putNew(run, 1)), write(markSent(run, 2, `missing-${run}`)), write(putNew(run, 3))]);

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(await Promise.all([1, 2, 3].map((n) => stateOf(run, n)))).toEqual(['claimed', 'claimed', 'claimed']);
  });

  test('writes handed in together share one transaction with the others, each with its own answer', async () => {
    // Prepare: item 1 is claimed (its mark succeeds), item 3 is not (its mark fails).
    const write = coalescedWriter({ maxItems: 25, concurrency: 1 });
    const run = randomUUID();
    await Promise.all([write(putNew(run, 1)), write(putNew(run, 3, 'uncertain'))]);

    // Act: a worker's mark and next claim, twice, beside a lone write.
    let answers: boolean[] = [];
    const requests = await requestsDuring(async () => {
      answers = await Promise.all([...write.together([markSent(run, 1), putNew(run, 2)]), ...write.together([markSent(run, 3), putNew(run, 4)]), write(putNew(run, 5))]);
    });

    // Assess: the failed mark cancelled the first transaction; the other writes went again without it.
    expect(answers).toEqual([true, true, false, true, true]);
    expect(requests).toEqual({ TransactWriteItems: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => stateOf(run, n)))).toEqual(['sent', 'claimed', 'uncertain', 'claimed', 'claimed']);
  });

  test('writes handed in together go one after another, in their order, when each must go on its own', async () => {
    // Prepare
    const write = coalescedWriter({ maxItems: 25, concurrency: 1 });
    const run = randomUUID();
    const order: string[] = [];
    const name = `order-${run}`;
    db().middlewareStack.add(
      (next, context) => (args) => {
        order.push(String(context.commandName).replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize', name },
    );

    // Act: the first write names a missing table, so the transaction fails for no write's condition.
    const answers = await Promise.allSettled(write.together([markSent(run, 1, `missing-${run}`), putNew(run, 2), putNew(run, 3)]));
    db().middlewareStack.remove(name);

    // Assess
    expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : 'rejected'))).toEqual(['rejected', true, true]);
    expect(order).toEqual(['TransactWriteItems', 'UpdateItem', 'PutItem', 'PutItem']);
    expect(await Promise.all([2, 3].map((n) => stateOf(run, n)))).toEqual(['claimed', 'claimed']);
  });

  test('a lone write goes as a plain request, at once', async () => {
    // Prepare
    const write = coalescedWriter({ maxItems: 25, concurrency: 2 });
    const run = randomUUID();

    // Act
    let answers: boolean[] = [];
    const requests = await requestsDuring(async () => {
      answers = [await write(putNew(run, 1)), await write(putNew(run, 1))];
    });

    // Assess
    expect(answers).toEqual([true, false]);
    expect(requests).toEqual({ PutItem: 2 });
  });

  test('writes of large items close a transaction before its 4 MB', async () => {
    // Prepare: 12 items of 350 KB, over the 4 MB DynamoDB takes in one transaction.
    const write = coalescedWriter({ maxItems: 100, concurrency: 1 });
    const run = randomUUID();
    const large = (n: number): ConditionalWrite => ({
      Put: { TableName: tableName(), Item: { ...key(run, n), state: 'claimed', body: 'x'.repeat(350 * 1024) }, ConditionExpression: 'attribute_not_exists(pk)' },
    });

    // Act: asked for in one turn, so they go together as far as a transaction takes them.
    let answers: boolean[] = [];
    const requests = await requestsDuring(async () => {
      answers = await Promise.all(Array.from({ length: 12 }, (_, n) => write(large(n))));
    });

    // Assess: 11 of 350 KB in one transaction, the last alone; none sent twice.
    expect(answers).toEqual(Array.from({ length: 12 }, () => true));
    expect(requests).toEqual({ TransactWriteItems: 1, PutItem: 1 });
  });
});
