// A send looks up each recipient's suppressions once, when their mail is about to go (the deliverer).
// The dispatcher queues the audience without reading them: a look at dispatch would be stale by send
// time anyway, and doubled the reads of every send. An account whose suppression state is complete
// when a send is dispatched has one state item per address read (half a read unit a recipient); a
// send dispatched before (an account stored before the state, its backfill not done) reads the global
// list, the send's group and the bounce list.
import type { SQSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { readsByKind, startCapacityMeter } from '../../bench/lib/capacity-meter';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { getDispatchState } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addBouncedAddress } from '../../shared/suppressions/bounces';
import { addGlobalUnsubscribe, addToUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { stateMarker } from '../../shared/suppressions/state';
import { db } from '../../shared/table/client';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';
import { jobsOf } from '../support/jobs';
import { asStoredBeforeState } from '../support/suppression-state';

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

/**
 * Dispatch the send with its delivery messages held back (fanned out, not delivered): what changes
 * before `deliver()` runs them happened after fan-out.
 */
async function dispatchHeld(accountId: number, utr: string): Promise<{ bodies: Record<string, unknown>[]; deliver: () => Promise<void> }> {
  const held: SQSEvent[] = [];
  const unregister = registerLocalConsumer('deliveries', (event) => {
    held.push(event);
    return Promise.resolve({ batchItemFailures: [] });
  });
  try {
    await dispatchHandler({ accountId, utr });
    await localQueueIdle('deliveries');
  } finally {
    unregister();
    registerLocalConsumer('deliveries', (event) => deliverHandler(event));
  }
  return {
    bodies: held.flatMap((event) => event.Records.map((record) => JSON.parse(record.body) as Record<string, unknown>)),
    deliver: async () => {
      for (const event of held) expect(await deliverHandler(event)).toEqual({ batchItemFailures: [] });
    },
  };
}

/** Read units per recipient on each kind of suppression item (state, global list, group, bounces). */
function suppressionReads(kinds: Record<string, number>): Record<string, number> {
  const of = (pattern: RegExp) => Object.entries(kinds).filter(([kind]) => pattern.test(kind)).reduce((sum, [, units]) => sum + units, 0);
  return {
    state: of(/\|A#N#address-suppression\|/),
    global: of(/\|A#N#global-unsubscribe-address\|/),
    group: of(/\|A#N#unsubscribe-group-address#N\|/),
    bounced: of(/\|A#N#bounced-address\|/),
  };
}

/** 12 readers of a send in a group: the first three are suppressed after fan-out (globally, from the group, bounced). */
async function sendOfTwelve() {
  const { accountId, typeId, emails } = await accountWithContacts(12);
  const group = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'News', is_display: 1 });
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }], unsubscribe_group_id: group.id });
  const [unsubscribed, leftGroup, bounced] = emails as [string, string, string];
  const suppressAll = async () => {
    await addGlobalUnsubscribe(accountId, unsubscribed);
    await addToUnsubscribeGroup(accountId, group.id, leftGroup);
    await addBouncedAddress(accountId, bounced, 'bounce', 'General');
  };
  return { accountId, emails, send, suppressAll };
}

test('a send dispatched with the account\'s state complete reads one state item per recipient and skips those suppressed after fan-out', async () => {
  const { accountId, emails, send, suppressAll } = await sendOfTwelve();
  const held = await dispatchHeld(accountId, send.utr);
  // Every message says so, as the dispatch recorded it.
  expect(held.bodies.map((body) => body.suppressionState)).toEqual(held.bodies.map(() => true));
  await suppressAll();

  const counting = countSuppressionReads(emails);
  const meter = startCapacityMeter();
  await held.deliver();
  meter.stop();
  counting.stop();

  const kinds = readsByKind(meter, emails.length, 100);
  expect((await getDispatchState(accountId, send.utr))?.suppressionState).toBe(true);
  expect(suppressionReads(kinds)).toEqual({ state: 0.5, global: 0, group: 0, bounced: 0 });
  expect([...counting.reads.values()]).toEqual(emails.map(() => 1));
  const mailed = (await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0]);
  expect(mailed.sort()).toEqual(emails.slice(3).sort());
  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 9 });
});

test('a send dispatched before the account\'s state was complete reads the three lists, skips those suppressed after fan-out, and starts the backfill once', async () => {
  const { accountId, emails, send, suppressAll } = await sendOfTwelve();
  await asStoredBeforeState(accountId);
  const held = await dispatchHeld(accountId, send.utr);
  expect(held.bodies.every((body) => body.suppressionState === undefined)).toBe(true);
  await suppressAll();

  const counting = countSuppressionReads(emails);
  await held.deliver();
  counting.stop();

  expect((await getDispatchState(accountId, send.utr))?.suppressionState).toBe(false);
  // The global list, the group and the bounce list, once each per address.
  expect([...counting.reads.values()]).toEqual(emails.map(() => 3));
  const mailed = (await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0]);
  expect(mailed.sort()).toEqual(emails.slice(3).sort());
  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: 9 });
  // The dispatch found the state incomplete and started its backfill (background jobs run in process).
  expect((await stateMarker(accountId)).status).not.toBe('absent');
  expect((await jobsOf(accountId)).map((job) => job.kind)).toEqual(['suppression-state-backfill']);
});
