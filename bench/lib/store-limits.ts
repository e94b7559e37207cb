// The store's own limits on this machine, measured in the same process and against the same DynamoDB
// Local as the figure they are the yardstick for: the raw rate of the writes the send path and the
// CSV import cannot do without, with nothing else around them. The send path is then reported as a
// share of the conditional-put rate (one ledger claim per recipient is its floor), the import as a
// share of the transactional rate (every new row is written in a transaction with its email claim).
import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

/** An item shaped like a delivery ledger claim of a single send's batch: its own partition, the attributes a claim carries (shared/ledger/repository.ts). */
function ledgerLikeItem(run: string, index: number): Record<string, unknown> {
  return {
    pk: `bench-store-limit#${run}#${index}@example.com`,
    sk: 'LEDGER',
    entity: 'bench-store-limit',
    state: 'claimed',
    claim_id: randomUUID(),
    email_address: `${index}@example.com`,
    claimed_at: new Date().toISOString(),
    batch_id: `${run}:${Math.floor(index / 50)}`,
    holder_message: run,
    holder_receive: 1,
    s: 'Hello Bench',
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

/** The conditional update that marks a claim `sent`, as the ledger writes it (only while it is still that claim). */
function markOf(run: string, index: number, claimId: string) {
  return {
    TableName: tableName(),
    Key: { pk: `bench-store-limit#${run}#${index}@example.com`, sk: 'LEDGER' },
    UpdateExpression: 'SET #state = :sent',
    ConditionExpression: 'claim_id = :claimId AND #state = :claimed',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':sent': 'sent', ':claimId': claimId, ':claimed': 'claimed' },
  };
}

/**
 * The ledger's own writes for `pairs` recipients, as a container's deliverers make them
 * (shared/ledger/repository.ts): each claim a plain conditional PutItem of a new entry, each mark a
 * plain conditional UpdateItem of the entry claimed before it, from `claimed` to `sent`. `concurrency`
 * workers each write the mark of their last recipient, then the claim of the next, one after the
 * other (the deliverer's order: never two claims of unknown outcome per worker). A pair's CPU is the
 * least the store side of one recipient can cost while every mail is claimed before SES is called
 * and marked after it answers.
 */
export async function ledgerPairRate(pairs: number, concurrency: number): Promise<StoreRate> {
  const run = randomUUID();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, pairs) }, async () => {
      let carried: { index: number; claimId: string } | undefined;
      for (let index = next++; index < pairs; index = next++) {
        if (carried) await db().send(new UpdateCommand(markOf(run, carried.index, carried.claimId)));
        const item = ledgerLikeItem(run, index);
        await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
        carried = { index, claimId: String(item.claim_id) };
      }
      if (carried) await db().send(new UpdateCommand(markOf(run, carried.index, carried.claimId)));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { itemsPerSecond: round(pairs / seconds, 0), requestsPerSecond: round((pairs * 2) / seconds, 1), requests: pairs * 2, concurrency, seconds: round(seconds, 2) };
}

/**
 * The same pairs as the ledger wrote them before each claim and mark went as a plain write of its
 * own: transactions of 12 claims and 12 marks, 2 in flight, as its coalescer kept them. Kept beside
 * the ledger's own shape to show what the yardstick measured before.
 */
export async function ledgerPairTransactionRate(pairs: number, concurrency: number): Promise<StoreRate> {
  const perTransaction = 12;
  const transactions = Math.ceil(pairs / perTransaction);
  const claimed = randomUUID();
  const claims = new Map<number, string>();
  const claimOf = (run: string, index: number) => {
    const item = ledgerLikeItem(run, index);
    if (run === claimed) claims.set(index, String(item.claim_id));
    return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
  };
  const seed = (index: number) => db().send(new TransactWriteCommand({ TransactItems: Array.from({ length: perTransaction }, (_, item) => claimOf(claimed, index * perTransaction + item)) }));
  await inParallel(Array.from({ length: transactions }, (_, index) => index), concurrency, async (index) => {
    await seed(index);
  });
  const fresh = randomUUID();
  return timed(transactions, concurrency, perTransaction, (index) =>
    db().send(
      new TransactWriteCommand({
        TransactItems: Array.from({ length: perTransaction }, (_, item) => {
          const at = index * perTransaction + item;
          return [claimOf(fresh, at), { Update: markOf(claimed, at, claims.get(at) ?? '') }];
        }).flat(),
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
