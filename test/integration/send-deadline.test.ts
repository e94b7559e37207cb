// Runs cut short by their time limit, on DynamoDB Local and the SES sink: the automation step runner
// and the single-send deliverer stop at a recipient boundary, claim a recipient in the ledger only
// once its turn at the rate limiter has come (right before SES), and leave everyone they did not
// mail for the next run, which mails them exactly once; the mails of the cut-short run are counted.
//
// How a Lambda that runs out of time is played here, without any timing in the assertions: mails go
// out at 5 a second through a stand-in SES in front of the sink. The run's time is "up" once
// `stopAfter` mails reached SES (its `keepGoing` hook turns false, as the Lambda's remaining time
// would). Should the run go on regardless, the Lambda is killed a little later: from the
// `frozenAfter + 1`-th call on, the stand-in holds every call (it never reaches SES and is never
// answered), which is all a frozen process could still do. The next run then finds what the killed
// one left behind.
import { createServer, type ServerResponse } from 'node:http';
import type { SesSink } from '../../infra/local/ses-sink';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { runDueSteps, type RunSummary } from '../../shared/automation-runs/runner';
import { listEnrolments } from '../../shared/automations/enrolments';
import { rememberDrainedHour } from '../../shared/automations/due-index';
import { drainedThrough } from '../../shared/automations/buckets';
import { listAutomationSteps } from '../../shared/automations/steps';
import { resetConfig } from '../../shared/config';
import { addContact } from '../../shared/audience/contact-service';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { deliverToRecipients, resetSendBucket, type DeliveryOutcome } from '../../shared/delivery/deliver';
import type { DeliveryRecipient } from '../../shared/delivery/delivery-message';
import { sendLedgerKey } from '../../shared/ledger/keys';
import { singleSendContent } from '../../shared/delivery/send-content';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import { getItem } from '../../shared/table/records';
import { startCapacityMeter } from '../../bench/lib/capacity-meter';
import { newAccount } from '../support/accounts';
import { addStep, automationWorld, call, createAutomation, detailsOf, type AutomationWorld } from '../support/automations';
import { sleep, useTestTable, waitFor, type TestTable } from '../support/local-stack';
import { startMailSink, stopMailSink } from '../support/senders';
import { contactFields, mailsTo, readySend, sqsEvent } from '../support/sending';

/** Recipients per test, mails the run has time for, and mails before a run that goes on is killed. */
const recipients = 10;
const stopAfter = 3;
const frozenAfter = 6;

let table: TestTable;
let sink: SesSink;
let stand: StandIn | undefined;
/** Runs that were "killed": their process lives on here and must end before the next test. */
const zombies: Promise<unknown>[] = [];
/** Automations to delete after the test (with the enrolments it left due, which the next test's runs would find). */
const automations: { world: AutomationWorld; utr: string }[] = [];

interface StandIn {
  endpoint: string;
  /** SendEmail calls received, held ones included. */
  readonly calls: number;
  /** Calls held: made by a killed run, never forwarded, never answered. */
  readonly held: number;
  /** A fresh Lambda takes over: calls are forwarded again. */
  revive(): void;
  stop(): Promise<void>;
}

/** A stand-in SES in front of the sink: forwards the first `frozenAfter` calls, holds the rest until `revive`. */
async function startStandIn(): Promise<StandIn> {
  let calls = 0;
  let revived = false;
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls++;
      if (!revived && calls > frozenAfter) {
        held.push(response);
        return;
      }
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<string, string>;
      void fetch(`${sink.endpoint}${request.url ?? '/'}`, { method: request.method, headers, body: Buffer.concat(chunks) })
        .then(async (forwarded) => {
          response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' });
          response.end(Buffer.from(await forwarded.arrayBuffer()));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get calls() {
      return calls;
    },
    get held() {
      return held.length;
    },
    revive() {
      revived = true;
    },
    stop: () =>
      new Promise<void>((closed) => {
        for (const response of held) response.destroy();
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/** Mail through a fresh stand-in at 5 mails a second. */
async function throughStandIn(): Promise<StandIn> {
  stand = await startStandIn();
  Object.assign(process.env, { SES_ENDPOINT: stand.endpoint, SES_MAX_SEND_RATE: '5' });
  resetConfig();
  resetSendingSettings();
  resetSendBucket();
  return stand;
}

/** The run's time is up once `stopAfter` mails reached SES. */
const keepGoing = () => (stand?.calls ?? 0) < stopAfter;

/** Wait until `work` ends on its own or its Lambda is killed (a call held); a killed run is left running as a zombie. */
async function untilEndedOrKilled<T>(work: Promise<T>): Promise<{ result?: T; killed: boolean }> {
  let ended = false;
  const watched = work.finally(() => {
    ended = true;
  });
  zombies.push(watched.catch(() => undefined));
  await waitFor(() => ended || (stand?.held ?? 0) > 0, 20_000, 'the run to end or be killed');
  return ended ? { result: await watched, killed: false } : { killed: true };
}

/**
 * A killed process starts nothing more. The zombie here still does, so before the next run wait
 * until every ledger claim it holds has reached the stand-in (where its calls stay held): it is then
 * stuck, exactly where a frozen Lambda would have left the table.
 */
async function untilClaimsReachedSes(ref: SendRef, emails: string[]): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if ((await claimedEmails(ref, emails)).length <= (stand?.calls ?? 0)) return;
    await sleep(50);
  }
  throw new Error('the killed run kept claims that never reached SES');
}

/** The addresses among `emails` holding a ledger entry for `ref`. */
async function claimedEmails(ref: SendRef, emails: string[]): Promise<string[]> {
  const items = await Promise.all(emails.map((email) => getItem(sendLedgerKey(ref.accountId, encodeSendRef(ref), email))));
  return emails.filter((_, i) => items[i] !== undefined);
}

/** How many mails each address got. */
async function mailCounts(emails: string[]): Promise<number[]> {
  const mails = await mailsTo(sink, emails);
  return emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).length);
}

function addresses(name: string): string[] {
  const tag = Math.random().toString(36).slice(2, 8);
  return Array.from({ length: recipients }, (_, i) => `${name}-${tag}-${String(i).padStart(2, '0')}@example.com`);
}

/** A live welcome automation (a first step at once, a second a day later) and `recipients` contacts enrolled in it. */
async function dueAutomation(name: string) {
  const world: AutomationWorld = await automationWorld();
  const utr = await createAutomation(world);
  await addStep(world, utr, { subject: 'Welcome', waiting_type: 'instantly', waiting_period: 0 });
  await addStep(world, utr, { subject: 'A day later', waiting_type: 'days', waiting_period: 1 });
  const live = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
  if (live.status !== 200) throw new Error(`set-live failed: ${JSON.stringify(live.body)}`);
  const emails = addresses(name);
  for (const email of emails) await addContact(world.accountId, contactFields(world.contactTypeId, email), {});
  const [first] = await listAutomationSteps(world.accountId, utr);
  const ref: SendRef = { kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr: String(first?.utr) };
  automations.push({ world, utr });
  return { world, utr, emails, firstStepId: Number(first?.id), ref };
}

/** The last step sent to each address's enrolment, in `emails` order. */
async function lastStepsSent(world: AutomationWorld, utr: string, emails: string[]): Promise<number[]> {
  const enrolments = await listEnrolments(world.accountId, utr);
  return emails.map((email) => enrolments.find((enrolment) => enrolment.email === email)?.lastStepId ?? -1);
}

beforeAll(async () => {
  table = await useTestTable();
  await seedReferenceData();
  sink = await startMailSink();
  // This table's runner has nothing older to catch up on.
  await rememberDrainedHour(drainedThrough(new Date()));
}, 120_000);

afterEach(async () => {
  await stand?.stop();
  stand = undefined;
  delete process.env.SES_MAX_SEND_RATE;
  process.env.SES_ENDPOINT = sink.endpoint;
  resetConfig();
  resetSendingSettings();
  resetSendBucket();
  await Promise.all(zombies.splice(0));
  for (const { world, utr } of automations.splice(0)) await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } });
});

afterAll(async () => {
  await stopMailSink(sink);
  await table.stop();
});

describe('the automation runner out of time', () => {
  test('stops at a recipient boundary: the next run mails everyone it did not, once, and the mails of both runs are counted', async () => {
    // Prepare
    const automation = await dueAutomation('cut-short');
    await throughStandIn();

    // Act: a run whose time runs out after a few mails of the page; then the next run.
    const first = await untilEndedOrKilled(runDueSteps({ keepGoing }));
    if (first.killed) await untilClaimsReachedSes(automation.ref, automation.emails);
    const mailedByFirst = await mailCounts(automation.emails);
    const stepsAfterFirst = await lastStepsSent(automation.world, automation.utr, automation.emails);
    stand?.revive();
    const second = await runDueSteps();

    // Assess: everyone mailed exactly once, and everyone's enrolment moved on past the first step.
    expect(await mailCounts(automation.emails)).toEqual(automation.emails.map(() => 1));
    expect(await lastStepsSent(automation.world, automation.utr, automation.emails)).toEqual(automation.emails.map(() => automation.firstStepId));
    // The cut-short run ended by itself, moved on exactly the enrolments it mailed and left the others due.
    expect(first.killed).toBe(false);
    const sentByFirst = mailedByFirst.filter((count) => count === 1).length;
    expect(sentByFirst).toBeGreaterThanOrEqual(stopAfter);
    expect(sentByFirst).toBeLessThan(recipients);
    expect(stepsAfterFirst).toEqual(mailedByFirst.map((count) => (count === 1 ? automation.firstStepId : 0)));
    // Its mails are counted, in its summary and in the automation's totals (delivered once SES's delivery events are in).
    await sink.eventsIdle();
    expect(first.result).toMatchObject<Partial<RunSummary>>({ sent: sentByFirst, keptDue: recipients - sentByFirst, complete: false });
    expect(second).toMatchObject<Partial<RunSummary>>({ due: recipients - sentByFirst, sent: recipients - sentByFirst, complete: true });
    expect(await detailsOf(automation.world, automation.utr)).toMatchObject({ total_triggered: recipients, total_delivered: recipients });
  });

  test('stopped while its recipients wait for the rate limiter, it holds no ledger claim for anyone it did not mail', async () => {
    // Prepare: ten recipients of one page at 5 mails a second, so most of them are waiting for their turn when time runs out.
    const automation = await dueAutomation('waiting');
    await throughStandIn();

    // Act
    const run = await untilEndedOrKilled(runDueSteps({ keepGoing }));
    const claimed = await claimedEmails(automation.ref, automation.emails);
    const counts = await mailCounts(automation.emails);

    // Assess: every ledger entry stands for a mail that reached SES; nobody is claimed but unsent.
    const mailed = automation.emails.filter((_, i) => counts[i] === 1);
    expect(claimed.filter((email) => !mailed.includes(email))).toEqual([]);
    expect(claimed).toEqual(mailed);
    expect(run.killed).toBe(false);
    expect(run.result).toMatchObject<Partial<RunSummary>>({ sent: mailed.length, keptDue: recipients - mailed.length, complete: false });
  });
});

describe('the single-send deliverer out of time', () => {
  test('claims a recipient only at its turn at the rate limiter: a batch cut short holds no claim without a mail, and its redelivery mails the rest once', async () => {
    // Prepare: a running send and one queue message of ten recipients.
    const account = await newAccount();
    const send = await readySend(account.account_id);
    expect(await startDispatch(account.account_id, send.utr)).toBe(true);
    const ref: SendRef = { kind: 'single-send', accountId: account.account_id, utr: send.utr };
    const emails = addresses('single');
    const batch: DeliveryRecipient[] = emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } }));
    const content = singleSendContent(await getSingleSend(account.account_id, send.utr));
    await throughStandIn();

    // Act: the batch's delivery runs out of time after a few mails; then the queue delivers the message again.
    const first = await untilEndedOrKilled<DeliveryOutcome>(deliverToRecipients(ref, content, batch, { keepGoing }));
    const claimed = await claimedEmails(ref, emails);
    const mailedByFirst = await mailCounts(emails);
    if (first.killed) await untilClaimsReachedSes(ref, emails);
    stand?.revive();
    const redelivered = await deliverHandler(sqsEvent([{ ref, recipients: batch, batchId: '0.0' }], 2));

    // Assess: no claim without a mail when it stopped; in the end everyone mailed exactly once, and counted.
    const mailed = emails.filter((_, i) => mailedByFirst[i] === 1);
    expect(claimed.filter((email) => !mailed.includes(email))).toEqual([]);
    expect(await mailCounts(emails)).toEqual(emails.map(() => 1));
    expect(redelivered).toEqual({ batchItemFailures: [] });
    expect(first.killed).toBe(false);
    expect(mailed.length).toBeLessThan(recipients);
    expect(first.result).toMatchObject({ sent: mailed.length, skipped: 0, failed: [], uncertain: 0 });
    // Handed back, unclaimed, for the queue to deliver again.
    expect(first.result?.deferred.map((recipient) => recipient.email)).toEqual(emails.filter((email) => !mailed.includes(email)));
    expect((await getSingleSend(account.account_id, send.utr)).triggered).toBe(recipients);
    expect(await getDispatchState(account.account_id, send.utr)).toMatchObject({ settledBatches: 1, sent: recipients - mailed.length, skipped: mailed.length });
  });

  test('a batch cut short looks up only the recipients its workers reached: the rest are handed back unread, for the run that mails them to read once', async () => {
    // Prepare: a running send and one message of 100 recipients (a whole batch), 4 workers.
    const account = await newAccount();
    const send = await readySend(account.account_id);
    expect(await startDispatch(account.account_id, send.utr)).toBe(true);
    const ref: SendRef = { kind: 'single-send', accountId: account.account_id, utr: send.utr };
    const tag = Math.random().toString(36).slice(2, 8);
    const emails = Array.from({ length: 100 }, (_, i) => `window-${tag}-${String(i).padStart(3, '0')}@example.com`);
    const batch: DeliveryRecipient[] = emails.map((email, i) => ({ email, contactId: i + 1, fields: { first_name: `Reader ${i}` } }));
    const content = singleSendContent(await getSingleSend(account.account_id, send.utr));
    await throughStandIn();
    process.env.DELIVERY_CONCURRENCY = '4';
    resetSendingSettings();
    const meter = startCapacityMeter();

    // Act: the run's time is up after a few mails.
    let first: { result?: DeliveryOutcome; killed: boolean };
    try {
      first = await untilEndedOrKilled<DeliveryOutcome>(deliverToRecipients(ref, content, batch, { keepGoing }));
    } finally {
      meter.stop();
      delete process.env.DELIVERY_CONCURRENCY;
      resetSendingSettings();
    }

    // Assess: looked up, a window of one recipient per worker, and the next when the first worker
    // done needs one (mailed at 5 a second, nothing is read further ahead); everyone else is handed
    // back unread and unclaimed.
    const lookedUp = meter.items().filter((item) => item.key.includes('global-unsubscribe-address|')).length;
    expect(first.killed).toBe(false);
    const mailed = first.result?.sent ?? 0;
    expect(mailed).toBeGreaterThan(0);
    expect(lookedUp).toBe(8);
    expect(first.result?.deferred.map((recipient) => recipient.email).sort()).toEqual(emails.slice(mailed));
  });
});

