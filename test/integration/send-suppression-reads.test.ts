// A send looks up each recipient's suppressions once, when their mail is about to go (the deliverer:
// the global list, the send's unsubscribe group and the bounce list). The dispatcher queues the
// audience without reading them: a look at dispatch would be stale by send time anyway, and doubled
// the reads of every send.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addGlobalUnsubscribe, addToUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { db } from '../../shared/table/client';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

/** Keys of `addresses` (suppression entries are keyed by address) asked for in BatchGetItem calls, by address. */
function countSuppressionReads(addresses: readonly string[]): { reads: Map<string, number>; stop: () => void } {
  const watched = new Set(addresses);
  const reads = new Map<string, number>();
  let on = true;
  const name = `suppression-reads-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => (args) => {
      const input = (args as { input: { RequestItems?: Record<string, { Keys?: Array<{ sk?: unknown }> }> } }).input;
      if (on && context.commandName === 'BatchGetItemCommand') {
        for (const request of Object.values(input.RequestItems ?? {})) {
          for (const key of request.Keys ?? []) {
            const address = String(key.sk);
            if (watched.has(address)) reads.set(address, (reads.get(address) ?? 0) + 1);
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { reads, stop: () => (on = false) };
}

test('each recipient\'s suppression lists are read once per send, at send time, and the suppressed are not mailed', async () => {
  // Prepare: 12 readers, one unsubscribed from everything and one from the send's group.
  const { accountId, typeId, emails } = await accountWithContacts(12);
  const group = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'News', is_display: 1 });
  const [unsubscribed, leftGroup] = emails as [string, string];
  await addGlobalUnsubscribe(accountId, unsubscribed);
  await addToUnsubscribeGroup(accountId, group.id, leftGroup);
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }], unsubscribe_group_id: group.id });
  const counting = countSuppressionReads(emails);

  // Act
  await dispatchHandler({ accountId, utr: send.utr });
  await localQueueIdle();
  counting.stop();

  // Assess: the global list, the group and the bounce list, once each per address.
  expect([...counting.reads.values()]).toEqual(emails.map(() => 3));
  expect(counting.reads.size).toBe(12);
  const mailed = (await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0]);
  expect(mailed.sort()).toEqual(emails.slice(2).sort());
  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 10 });
});
