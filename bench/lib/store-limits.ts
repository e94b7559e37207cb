// The store's own limits on this machine, measured in the same process and against the same DynamoDB
// Local as the figure they are the yardstick for: the raw rate of the writes the send path and the
// CSV import cannot do without, with nothing else around them. The send path is then reported as a
// share of the conditional-put rate (one ledger claim per recipient is its floor), the import as a
// share of the transactional rate (every new row is written in a transaction with its email claim).
import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { sendMail, type OutgoingMail } from '../../shared/mail/mailer';
import { db, tableName } from '../../shared/table/client';
import { inParallel } from '../../shared/table/concurrency';
import { round } from './report';

export interface StoreRate {
  /** Items written per second (a transaction of 50 counts 50). */
  itemsPerSecond: number;
  /** Requests per second (puts, or transactions). */
  requestsPerSecond: number;
  requests: number;
  concurrency: number;
  seconds: number;
}

/** An item shaped like a delivery ledger claim: its own partition, a handful of short attributes. */
function ledgerLikeItem(run: string, index: number): Record<string, unknown> {
  return {
    pk: `bench-store-limit#${run}#${index}@example.com`,
    sk: 'LEDGER',
    entity: 'bench-store-limit',
    state: 'claimed',
    claim_id: randomUUID(),
    email_address: `${index}@example.com`,
    claimed_at: new Date().toISOString(),
    expires_at: Math.floor(Date.now() / 1000) + 3600,
  };
}

async function timed(requests: number, concurrency: number, itemsPerRequest: number, send: (index: number) => Promise<unknown>): Promise<StoreRate> {
  const indexes = Array.from({ length: requests }, (_, index) => index);
  const started = performance.now();
  await inParallel(indexes, concurrency, async (index) => {
    await send(index);
  });
  const seconds = (performance.now() - started) / 1000;
  return { itemsPerSecond: round((requests * itemsPerRequest) / seconds, 0), requestsPerSecond: round(requests / seconds, 1), requests, concurrency, seconds: round(seconds, 2) };
}

/** Conditional single-item puts (attribute_not_exists), each to a new partition, `concurrency` in flight; after a warm-up of a quarter as many. */
export async function conditionalPutRate(puts: number, concurrency: number): Promise<StoreRate> {
  const put = (run: string) => (index: number) =>
    db().send(new PutCommand({ TableName: tableName(), Item: ledgerLikeItem(run, index), ConditionExpression: 'attribute_not_exists(pk)' }));
  await timed(Math.ceil(puts / 4), concurrency, 1, put(`warm-${randomUUID()}`));
  return timed(puts, concurrency, 1, put(randomUUID()));
}

/** TransactWriteItems of `itemsPerTransaction` conditional puts each, `concurrency` in flight; after a warm-up of a quarter as many. */
export async function transactionRate(transactions: number, itemsPerTransaction: number, concurrency: number): Promise<StoreRate> {
  const transact = (run: string) => (index: number) =>
    db().send(
      new TransactWriteCommand({
        TransactItems: Array.from({ length: itemsPerTransaction }, (_, item) => ({
          Put: { TableName: tableName(), Item: ledgerLikeItem(run, index * itemsPerTransaction + item), ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      }),
    );
  await timed(Math.ceil(transactions / 4), concurrency, itemsPerTransaction, transact(`warm-${randomUUID()}`));
  return timed(transactions, concurrency, itemsPerTransaction, transact(randomUUID()));
}

/**
 * The ledger's own writes for `pairs` recipients, as a container's deliverers send them: transactions
 * of 12 claims (conditional puts of new entries) and 12 marks (conditional updates of entries claimed
 * before, from `claimed` to `sent`), `concurrency` in flight (the ledger's coalescer keeps 2). The marked entries are written first,
 * untimed. A pair's CPU is the least the store side of one recipient can cost while every mail is
 * claimed before SES is called and marked after it answers.
 */
export async function ledgerPairRate(pairs: number, concurrency: number): Promise<StoreRate> {
  const perTransaction = 12;
  const transactions = Math.ceil(pairs / perTransaction);
  const claimed = randomUUID();
  const claimOf = (run: string, index: number) => ({ Put: { TableName: tableName(), Item: ledgerLikeItem(run, index), ConditionExpression: 'attribute_not_exists(pk)' } });
  const seed = (index: number) => db().send(new TransactWriteCommand({ TransactItems: Array.from({ length: perTransaction }, (_, item) => claimOf(claimed, index * perTransaction + item)) }));
  await inParallel(Array.from({ length: transactions }, (_, index) => index), concurrency, async (index) => {
    await seed(index);
  });
  const fresh = randomUUID();
  const markOf = (index: number) => ({
    Update: {
      TableName: tableName(),
      Key: { pk: `bench-store-limit#${claimed}#${index}@example.com`, sk: 'LEDGER' },
      UpdateExpression: 'SET #state = :sent',
      ConditionExpression: '#state = :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':sent': 'sent', ':claimed': 'claimed' },
    },
  });
  return timed(transactions, concurrency, perTransaction, (index) =>
    db().send(
      new TransactWriteCommand({
        TransactItems: Array.from({ length: perTransaction }, (_, item) => [claimOf(fresh, index * perTransaction + item), markOf(index * perTransaction + item)]).flat(),
      }),
    ),
  );
}

/** SES SendEmail of one ready mail to the local sink, `concurrency` in flight; after a warm-up of a quarter as many. */
export async function sinkRate(mails: number, concurrency: number, mail: OutgoingMail): Promise<StoreRate> {
  const send = (run: string) => (index: number) => sendMail({ ...mail, to: [`limit-${run}-${index}@example.com`] });
  await timed(Math.ceil(mails / 4), concurrency, 1, send('warm'));
  return timed(mails, concurrency, 1, send('timed'));
}
