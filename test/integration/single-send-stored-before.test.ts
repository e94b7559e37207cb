// A single send stored before its state and counters had items of their own (everything on its
// record) reads as before, counts on top of what its record held, and sends: its state is adopted
// into the state item by the first step that changes it (docs/operations.md, upgrade section).
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { recordSendEvent } from '../../shared/statistics/event-counts';
import { singleSendStats } from '../../shared/statistics/report';
import { singleSendKey, singleSendStateKey } from '../../shared/single-sends/keys';
import { getSingleSend, listSingleSendsPage } from '../../shared/single-sends/repository';
import { db, tableName } from '../../shared/table/client';
import { getItem, updateExistingItem } from '../../shared/table/records';
import { accountWithContacts, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

/** A ready send as the code before stored it: one record with its counters on it, no state item. */
async function storedBefore(accountId: number, typeId: number) {
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }] });
  await db().send(new DeleteCommand({ TableName: tableName(), Key: singleSendStateKey(accountId, send.utr) }));
  await updateExistingItem(singleSendKey(accountId, send.utr), { triggered: 7, delivered: 6, unique_opens: 2, total_opens: 3, bounces: 1, clicks: 4 });
  return send;
}

test('reads its record as before, and counts on top of what the record held', async () => {
  const { accountId, typeId } = await accountWithContacts(1);
  const send = await storedBefore(accountId, typeId);

  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 1, triggered: 7, delivered: 6, unique_opens: 2, total_opens: 3, bounces: 1 });
  expect((await listSingleSendsPage(accountId, { limit: 10 })).items).toEqual([await getSingleSend(accountId, send.utr)]);

  await recordSendEvent({ kind: 'single-send', accountId, utr: send.utr }, 'open', 'ada@example.com');

  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 1, triggered: 7, delivered: 6, unique_opens: 3, total_opens: 4, bounces: 1 });
  expect((await singleSendStats(accountId, send.utr)).stats).toMatchObject({ delivered: 6, opens: 4, unique_opens: 3, clicks: 4, bounces: 1 });
  // Counting adopted its state into an item of its own.
  expect(await getItem(singleSendStateKey(accountId, send.utr))).toMatchObject({ status: 1, legacy_counts: { triggered: 7, delivered: 6, unique_opens: 2, total_opens: 3 } });
});

test('dispatches and completes, its mails added to the counts its record held', async () => {
  const { accountId, typeId, emails } = await accountWithContacts(3);
  const send = await storedBefore(accountId, typeId);

  await dispatchHandler({ accountId, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();

  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 7 + emails.length, delivered: 6 + emails.length, unique_opens: 2, bounces: 1 });
});
