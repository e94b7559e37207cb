// The delivery ledger: a batch delivered twice (a crash after SES and before the queue's ack), two
// deliverers on one batch at once, and a deliverer killed mid-batch and run again never mail anyone twice.
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { resetConfig } from '../../shared/config';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { addGlobalUnsubscribe } from '../../shared/suppressions/unsubscribes';
import { readsByKind, startCapacityMeter } from '../../bench/lib/capacity-meter';
import { newAccount } from '../support/accounts';
import { waitFor } from '../support/local-stack';
import { mailsTo, readySend, sqsEvent, startSendingEnvironment, startSesProxy, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  // These runs are about the ledger, not turns: a turn ending mid-batch on a busy machine would hand
  // the rest to a fresh message that each test's act does not wait for (and that skews its counts).
  process.env.DELIVERY_TURN_MS = '600000';
  resetSendingSettings();
});

afterAll(async () => {
  delete process.env.DELIVERY_TURN_MS;
  resetSendingSettings();
  await env.stop();
});

afterEach(() => {
  delete process.env.DELIVERY_CONCURRENCY;
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
  resetSendingSettings();
});

/** A running send and one queue message for `count` recipients of it. */
async function runningBatch(count: number) {
  const account = await newAccount();
  const send = await readySend(account.account_id);
  expect(await startDispatch(account.account_id, send.utr)).toBe(true);
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `ledger-${tag}-${i}@example.com`);
  const message = {
    ref: { kind: 'single-send', accountId: account.account_id, utr: send.utr },
    recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } })),
    batchId: '0.0',
  };
  return { accountId: account.account_id, utr: send.utr, emails, message };
}

/** How many mails each address got. */
async function mailCounts(emails: string[]): Promise<number[]> {
  const mails = await mailsTo(env.sink, emails);
  return emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length);
}

describe('the ledger', () => {
  test('the same batch delivered twice mails everyone once and counts once', async () => {
    // Prepare
    const batch = await runningBatch(20);

    // Act: the first run sends everything, but its ack is "lost": the queue delivers the batch again.
    const first = await deliverHandler(sqsEvent([batch.message], 1));
    const second = await deliverHandler(sqsEvent([batch.message], 2));

    // Assess
    expect(first).toEqual({ batchItemFailures: [] });
    expect(second).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    // Delivered comes from SES's delivery events, once per recipient.
    await env.sink.eventsIdle();
    expect(await getSingleSend(batch.accountId, batch.utr)).toMatchObject({ triggered: 20, delivered: 20 });
    // The batch settles once: the second run finds it settled already.
    expect(await getDispatchState(batch.accountId, batch.utr)).toMatchObject({ settledBatches: 1, sent: 20, skipped: 0 });
  });

  test('two deliverers on the same batch at once mail everyone once', async () => {
    const batch = await runningBatch(30);

    await Promise.all([deliverHandler(sqsEvent([batch.message])), deliverHandler(sqsEvent([batch.message]))]);

    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(30);
  });

  test('a deliverer killed mid-batch, after SES took a mail and before it answered, and run again mails nobody twice', async () => {
    // Prepare: SES answers the first 5 mails, takes the next 2 and never answers (the Lambda dies
    // there, so it retries nothing), then answers normally again for the next run.
    const batch = await runningBatch(20);
    const proxy = await startSesProxy(env.sink, (call) => (call === 6 || call === 7 ? 'forward-then-hang' : 'forward'));
    process.env.SES_ENDPOINT = proxy.endpoint;
    process.env.DELIVERY_CONCURRENCY = '2';
    resetConfig();
    resetSendingSettings();

    // Act: the first run hangs in its two SES calls and is abandoned; the queue delivers the batch again.
    const killed = deliverHandler(sqsEvent([batch.message], 1));
    await waitFor(() => proxy.calls.length === 7, 10_000, 'the two hanging SES calls');
    const rerun = await deliverHandler(sqsEvent([batch.message], 2));

    // Assess: everyone exactly once: 7 by the killed run (2 of them unanswered), the other 13 by the re-run.
    expect(rerun).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect(proxy.calls).toEqual([...Array(5).fill('forward'), 'forward-then-hang', 'forward-then-hang', ...Array(13).fill('forward')]);
    // The batch is counted when it settles, from the ledger: the dead run's 5 answered mails too.
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(18);

    // Here the "killed" run was only abandoned: its calls now end without an answer. Those two
    // recipients were marked uncertain by the re-run and are never mailed again; nothing is counted twice.
    await proxy.stop();
    await killed;
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect((await getSingleSend(batch.accountId, batch.utr)).triggered).toBe(18);
  });

  test("a batch's first run reads no recipient's ledger entry up front; a redelivery reads each once", async () => {
    const batch = await runningBatch(20);
    const ledgerReads = async (receive: number) => {
      const meter = startCapacityMeter();
      try {
        await deliverHandler(sqsEvent([batch.message], receive));
      } finally {
        meter.stop();
      }
      const kinds = readsByKind(meter, batch.emails.length, 100);
      return Object.entries(kinds).find(([kind]) => kind.includes('contact-activity#<email>|mail#'))?.[1] ?? 0;
    };

    // Nothing of this batch can be in the ledger before its first run: a duplicate address held by
    // another batch is found by its claim, which is conditional.
    expect(await ledgerReads(1)).toBe(0);
    // A redelivery finds everyone held, so it reads them all in one batch of reads rather than claim by claim.
    expect(await ledgerReads(2)).toBe(0.5);
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
  });

  test('a recipient the batch mailed counts as mailed though they unsubscribed since, in a redelivery and in a fresh message of the batch alike', async () => {
    const batch = await runningBatch(10);
    expect(await deliverHandler(sqsEvent([batch.message], 1))).toEqual({ batchItemFailures: [] });
    await addGlobalUnsubscribe(batch.accountId, String(batch.emails[3]));

    // A redelivery (second receive) and a fresh message of the batch (a first receive, as a resumed
    // send re-queues a parked batch) both find all 10 mailed, the unsubscribed one included.
    expect(await deliverHandler(sqsEvent([batch.message], 2))).toEqual({ batchItemFailures: [] });
    expect(await deliverHandler(sqsEvent([batch.message], 1))).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect(await getDispatchState(batch.accountId, batch.utr)).toMatchObject({ settledBatches: 1, sent: 10, skipped: 0 });
  });
});

