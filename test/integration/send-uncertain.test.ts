// After a deliverer dies mid-batch, every recipient of the batch ends up counted exactly once: mailed
// (triggered) or with an unknown outcome (uncertain, shown in the send's details), never mailed twice.
// The "killed" run is simulated by an SES stand-in that takes two mails and never answers: the run is
// abandoned there, as a Lambda killed at that moment would be, and the queue delivers the batch again.
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { resetConfig } from '../../shared/config';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { claimRecipient, markRecipientSent } from '../../shared/ledger/repository';
import type { SendRef } from '../../shared/ledger/send-ref';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { waitFor } from '../support/local-stack';
import { callSingleSends } from '../support/single-sends';
import { mailsTo, readySend, sqsEvent, startSendingEnvironment, startSesProxy, type SendingEnvironment, type SesProxy } from '../support/sending';

let env: SendingEnvironment;
let proxy: SesProxy | undefined;
/** Abandoned runs, let finish once their SES calls end (after each test), so none outlives the file. */
let abandoned: Promise<unknown>[] = [];

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await Promise.all(abandoned);
  abandoned = [];
  delete process.env.DELIVERY_CONCURRENCY;
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
  resetSendingSettings();
  resetClock();
});

/** A running send and one queue message (batch 0.0) for `count` recipients of it. */
async function runningBatch(count: number) {
  const account = await newAccount();
  const send = await readySend(account.account_id);
  expect(await startDispatch(account.account_id, send.utr)).toBe(true);
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `uncertain-${tag}-${i}@example.com`);
  const message = {
    ref: { kind: 'single-send', accountId: account.account_id, utr: send.utr },
    recipients: emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } })),
    batchId: '0.0',
  };
  return { account, utr: send.utr, emails, message };
}

async function mailCounts(emails: string[]): Promise<number[]> {
  const mails = await mailsTo(env.sink, emails);
  return emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length);
}

/**
 * A first receive of the batch that SES answers for 5 mails, takes 2 more and never answers (the run
 * dies there, holding two claims), then a second receive of the same message that finishes the batch.
 */
async function killedThenRedelivered(count: number) {
  const batch = await runningBatch(count);
  proxy = await startSesProxy(env.sink, (call) => (call === 6 || call === 7 ? 'forward-then-hang' : 'forward'));
  process.env.SES_ENDPOINT = proxy.endpoint;
  process.env.DELIVERY_CONCURRENCY = '2';
  resetConfig();
  resetSendingSettings();
  const killed = deliverHandler(sqsEvent([batch.message], 1));
  abandoned.push(killed);
  await waitFor(() => proxy?.calls.length === 7, 10_000, 'the two unanswered SES calls');
  const redelivered = await deliverHandler(sqsEvent([batch.message], 2));
  return { ...batch, killed, redelivered };
}

async function details(batch: { account: { account_id: number; public_key: string; secret_key: string }; utr: string }): Promise<Record<string, unknown>> {
  const { status, body } = await callSingleSends(batch.account, 'GET', 'single-send/details', { query: { utr: batch.utr } });
  expect(status).toBe(200);
  return ((body.message as { singleSend: Record<string, unknown>[] }).singleSend[0]) as Record<string, unknown>;
}

describe('a batch redelivered after its deliverer died mid-batch', () => {
  test('counts the mails the dead run handed to SES: triggered is right once the batch settles', async () => {
    // Act
    const batch = await killedThenRedelivered(20);

    // Assess: 5 answered by SES in the dead run, 13 mailed by the redelivery; the 2 unanswered are not mail we know of.
    expect(batch.redelivered).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    // SES took the 2 unanswered mails too and reports them delivered, as it would deployed: delivered counts what SES delivered.
    await env.sink.eventsIdle();
    expect(await getSingleSend(batch.account.account_id, batch.utr)).toMatchObject({ triggered: 18, delivered: 20, status: 2 });
    expect(await getDispatchState(batch.account.account_id, batch.utr)).toMatchObject({ settledBatches: 1, sent: 18, skipped: 0, failed: 0 });
  });

  test('counts the claims left without an answer as uncertain, shows them in the details, and never mails them again', async () => {
    // Act
    const batch = await killedThenRedelivered(20);

    // Assess: everyone once, either triggered or uncertain; the two unanswered were not mailed again.
    expect(batch.redelivered).toEqual({ batchItemFailures: [] });
    expect(proxy?.calls).toHaveLength(20);
    expect(await getDispatchState(batch.account.account_id, batch.utr)).toMatchObject({ settledBatches: 1, sent: 18, uncertain: 2, failed: 0 });
    const shown = await details(batch);
    expect(shown).toMatchObject({ triggered: 18, uncertain: 2 });

    // The dead run, had it lived on, changes nothing: its calls end unanswered, and the batch is settled.
    await proxy?.stop();
    proxy = undefined;
    await batch.killed;
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map(() => 1));
    expect(await details(batch)).toMatchObject({ triggered: 18, uncertain: 2 });
  });

  test('a batch delivered without trouble shows uncertain 0', async () => {
    const batch = await runningBatch(5);

    expect(await deliverHandler(sqsEvent([batch.message], 1))).toEqual({ batchItemFailures: [] });

    expect(await details(batch)).toMatchObject({ triggered: 5, uncertain: 0 });
  });

  test('claims another message of the batch left (a page fanned out twice) count as uncertain once older than any SES call', async () => {
    // Prepare: three recipients claimed by a copy of the message whose run then died, before any SES call.
    const batch = await runningBatch(10);
    const ref = batch.message.ref as SendRef;
    const holder = { batchId: '0.0', messageId: 'the-other-copy', receive: 1 };
    for (const email of batch.emails.slice(0, 3)) expect(await claimRecipient(ref, email, holder)).toBeDefined();
    const later = Date.now() + 60_000;
    setClock(() => new Date(later));

    // Act
    expect(await deliverHandler(sqsEvent([batch.message], 1))).toEqual({ batchItemFailures: [] });

    // Assess
    expect(await mailCounts(batch.emails)).toEqual(batch.emails.map((_, i) => (i < 3 ? 0 : 1)));
    expect(await details(batch)).toMatchObject({ triggered: 7, uncertain: 3 });
  });

  test('a claim a live run of the batch holds is waited for, and counted as that run ends it', async () => {
    // Prepare: another copy of the message holds one recipient and is about to hear SES's answer.
    const batch = await runningBatch(4);
    const ref = batch.message.ref as SendRef;
    const claim = await claimRecipient(ref, batch.emails[0] as string, { batchId: '0.0', messageId: 'the-other-copy', receive: 1 });
    expect(claim).toBeDefined();
    const answered = new Promise((resume) => setTimeout(resume, 700)).then(() => markRecipientSent(claim as NonNullable<typeof claim>));

    // Act
    const delivered = await deliverHandler(sqsEvent([batch.message], 1));

    // Assess: the other run's mail counts for the batch (it was sent by the batch), and nobody is mailed twice.
    expect(await answered).toBe(true);
    expect(delivered).toEqual({ batchItemFailures: [] });
    expect(await mailCounts(batch.emails)).toEqual([0, 1, 1, 1]);
    expect(await details(batch)).toMatchObject({ triggered: 4, uncertain: 0 });
  });
});
