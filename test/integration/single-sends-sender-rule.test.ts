// The sender-verification rule for single sends, through the handlers on DynamoDB Local with the real
// scheduler jobs, queue and SES sink: a draft may name an unverified sender and waits at status 0; the
// sender's confirmation moves it on by itself (an immediate send goes out, a scheduled one keeps its
// time); and the dispatcher checks the sender at every run, so nothing is mailed from an address nobody
// has confirmed, even when the address changes after the send was scheduled.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as senders } from '../../functions/senders/handler';
import { addContact } from '../../shared/audience/contact-service';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { signSenderConfirmation } from '../../shared/senders/confirmation';
import { deleteSender, getSender } from '../../shared/senders/repository';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';
import { resetClock, setClock } from '../../shared/time';
import { apiEvent, authHeaders, multipart, parsed, urlencoded, type Keys } from '../support/events';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';
import { holdSend } from '../../shared/send-gates/hold-service';
import { saveDispatchPage, startDispatch } from '../../shared/single-sends/progress';
import { senderInput, uniqueAddress } from '../support/senders';
import {
  addTestSender,
  callSingleSends as call,
  jobName,
  newSendingAccount,
  pendingJobTimes,
  sendFields,
  takeJob,
  utcDateAndTime,
  type SendingAccount,
} from '../support/single-sends';

const waitsForSender = (senderId: number) => ({
  reason: 'sender-unverified',
  message: `Sender ${senderId} is not verified: the send waits and moves on by itself once the sender's address is confirmed.`,
  since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  retry_at: null,
});

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
}, 120_000);

afterAll(async () => {
  resetClock();
  await env.stop();
});

/** An account with everything a send names and `count` contacts in its contact type. */
async function accountWithAudience(count = 2): Promise<{ account: SendingAccount; readers: string[] }> {
  const account = await newSendingAccount();
  const tag = Math.random().toString(36).slice(2, 8);
  const readers = Array.from({ length: count }, (_, i) => `reader-${i}-${tag}@example.com`);
  for (const email of readers) await addContact(account.keys.account_id, contactFields(account.contactTypeId, email), {});
  return { account, readers };
}

async function create(account: SendingAccount, overrides: Record<string, string | number> = {}) {
  return call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, overrides)) });
}

async function createdUtr(account: SendingAccount, overrides: Record<string, string | number> = {}): Promise<string> {
  const result = await create(account, overrides);
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

async function details(keys: Keys, utr: string): Promise<Record<string, unknown>> {
  const { body } = await call(keys, 'GET', 'single-send/details', { query: { utr } });
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

/** Press the button of the sender's confirmation page, as its owner does after following the link. */
async function confirmAddress(accountId: number, senderId: number, email: string): Promise<number | undefined> {
  const token = signSenderConfirmation({ accountId, senderId, email });
  const page = await publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded({ token }) }));
  return page.statusCode;
}

/** Fire the send's pending scheduler job as the poller would, and wait for its deliveries. */
async function fireJob(accountId: number, utr: string): Promise<void> {
  const name = jobName(accountId, utr);
  const [due] = await pendingJobTimes(name);
  if (!due) throw new Error(`no job pending for ${utr}`);
  const job = await takeJob(name, new Date(due));
  if (!job) throw new Error(`job of ${utr} could not be taken`);
  await dispatchHandler(JSON.parse(job.input) as { accountId: number; utr: string });
  await localQueueIdle();
}

/** A whole minute `minutes` from now, as create's schedule fields. */
function scheduledIn(minutes: number): { at: Date; fields: Record<string, string | number> } {
  const at = new Date(Date.now() + minutes * 60_000);
  at.setUTCSeconds(0, 0);
  const { date, time } = utcDateAndTime(at);
  return { at, fields: { schedule_type: 1, schedule_date: date, schedule_time: time } };
}

describe('single/send/create with an unverified sender', () => {
  it('answers success; the send stays a draft (status 0) that says it waits for the sender, with no job and no mail', async () => {
    const { account, readers } = await accountWithAudience();
    const sender = await addTestSender(account.keys.account_id, { verified: false });

    const result = await create(account, { sender_id: sender.id });

    expect(result).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.any(String) } } });
    const utr = (result.body.message as { utr: string }).utr;
    expect(await details(account.keys, utr)).toMatchObject({ status: 0, sender_id: sender.id, from_sender: sender.from_email, waiting: waitsForSender(sender.id) });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([]);
    // Even a stray fire of its job sends nothing.
    expect(await dispatchSingleSend(account.keys.account_id, utr)).toBe('not-ready');
    await localQueueIdle();
    expect(await mailsTo(env.sink, readers)).toEqual([]);
  });

  it('goes out once the sender is confirmed: an immediate send is dispatched at once, from the confirmed address', async () => {
    const { account, readers } = await accountWithAudience();
    const sender = await addTestSender(account.keys.account_id, { verified: false });
    const utr = await createdUtr(account, { sender_id: sender.id });

    const before = Date.now();
    expect(await confirmAddress(account.keys.account_id, sender.id, sender.from_email)).toBe(200);

    const [due] = await pendingJobTimes(jobName(account.keys.account_id, utr));
    expect(Date.parse(due as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(due as string)).toBeLessThanOrEqual(Date.now() + 1000);
    const released = await details(account.keys, utr);
    expect(released.status).toBe(1);
    expect(released).not.toHaveProperty('waiting');
    await fireJob(account.keys.account_id, utr);
    const mails = await mailsTo(env.sink, readers);
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([...readers].sort());
    expect(mails.every((mail) => mail.from === `Acme News <${sender.from_email}>`)).toBe(true);
    expect(await details(account.keys, utr)).toMatchObject({ status: 3, triggered: 2 });
  });

  it('keeps the time of a scheduled send when the sender is confirmed before it', async () => {
    const { account, readers } = await accountWithAudience(1);
    const sender = await addTestSender(account.keys.account_id, { verified: false });
    const { at, fields } = scheduledIn(90);
    const utr = await createdUtr(account, { sender_id: sender.id, ...fields });
    expect(await details(account.keys, utr)).toMatchObject({ status: 0, schedule_type: 1, waiting: waitsForSender(sender.id) });

    await confirmAddress(account.keys.account_id, sender.id, sender.from_email);

    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([at.toISOString()]);
    expect(await details(account.keys, utr)).toMatchObject({ status: 1, schedule_date: fields.schedule_date, schedule_time: fields.schedule_time });
    expect(await dispatchSingleSend(account.keys.account_id, utr)).toBe('not-due');
    expect(await mailsTo(env.sink, readers)).toEqual([]);
  });

  it('goes out at once when its scheduled time passed while it waited for the sender', async () => {
    const { account, readers } = await accountWithAudience(1);
    const sender = await addTestSender(account.keys.account_id, { verified: false });
    const { fields } = scheduledIn(5);
    const utr = await createdUtr(account, { sender_id: sender.id, ...fields });

    const later = Date.now() + 60 * 60_000;
    setClock(() => new Date(later));
    try {
      await confirmAddress(account.keys.account_id, sender.id, sender.from_email);
      const [due] = await pendingJobTimes(jobName(account.keys.account_id, utr));
      expect(Date.parse(due as string)).toBeGreaterThanOrEqual(later - 1000);
      expect(Date.parse(due as string)).toBeLessThanOrEqual(later + 1000);
      await fireJob(account.keys.account_id, utr);
    } finally {
      resetClock();
    }
    expect(await mailsTo(env.sink, readers)).toHaveLength(1);
  });

  it('waits for the sender it names now after an update, and an update to a verified sender makes it ready', async () => {
    const { account } = await accountWithAudience(1);
    const unverified = await addTestSender(account.keys.account_id, { verified: false });
    const utr = await createdUtr(account);
    expect(await details(account.keys, utr)).toMatchObject({ status: 1 });

    const toUnverified = await call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account, { sender_id: unverified.id }), utr }) });
    expect(toUnverified).toEqual({ status: 200, body: { status: 'success', message: { utr } } });
    expect(await details(account.keys, utr)).toMatchObject({ status: 0, sender_id: unverified.id, waiting: waitsForSender(unverified.id) });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([]);

    const { at, fields } = scheduledIn(30);
    const toVerified = await call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account, fields), utr }) });
    expect(toVerified.status).toBe(200);
    const ready = await details(account.keys, utr);
    expect(ready).toMatchObject({ status: 1, sender_id: account.sender.id });
    expect(ready).not.toHaveProperty('waiting');
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([at.toISOString()]);

    // The sender it no longer names is confirmed: nothing about this send changes.
    await confirmAddress(account.keys.account_id, unverified.id, unverified.from_email);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([at.toISOString()]);
  });

  it("still refuses a sender of another account, and a copy of a waiting send is a plain draft", async () => {
    const { account } = await accountWithAudience(1);
    const stranger = await newSendingAccount('Stranger');
    const foreign = await addTestSender(stranger.keys.account_id, { verified: false });
    expect(await create(account, { sender_id: foreign.id + 1000 })).toEqual({
      status: 422,
      body: { status: 'failed', errors: { sender_id: ['The selected sender id is invalid.'] } },
    });
    const unverified = await addTestSender(account.keys.account_id, { verified: false });
    const utr = await createdUtr(account, { sender_id: unverified.id });
    expect((await call(account.keys, 'GET', 'single/send/duplicate', { query: { utr } })).status).toBe(200);
    const { body } = await call(account.keys, 'GET', 'single-send/list');
    const copy = (body.message as { singleSends: Record<string, unknown>[] }).singleSends.find((send) => send.utr !== utr);
    expect(copy).toMatchObject({ status: 0 });
    expect(copy).not.toHaveProperty('waiting');
  });
});

describe('the dispatcher checks the sender at every run', () => {
  async function changeAddress(keys: Keys, senderId: number, email: string): Promise<void> {
    const result = parsed(
      await senders(apiEvent({ method: 'POST', path: 'sender/update', headers: authHeaders(keys), body: multipart({ ...senderInput({ from_email: email }), sender_id: senderId }) })),
    );
    expect(result.status).toBe(200);
  }

  it('holds a send whose sender changed address after it was scheduled, mails nothing, and goes on from the confirmed address', async () => {
    const { account, readers } = await accountWithAudience();
    const { fields } = scheduledIn(10);
    const utr = await createdUtr(account, fields);
    const oldAddress = account.sender.from_email;
    const newAddress = uniqueAddress();
    await changeAddress(account.keys, account.sender.id, newAddress);
    expect((await getSender(account.keys.account_id, account.sender.id)).is_verified).toBe(0);

    const due = Date.now() + 11 * 60_000;
    setClock(() => new Date(due));
    try {
      expect(await dispatchSingleSend(account.keys.account_id, utr)).toBe('held');
      await localQueueIdle();
      expect(await mailsTo(env.sink, readers)).toEqual([]);
      expect(await details(account.keys, utr)).toMatchObject({ status: 1, from_sender: oldAddress, waiting: waitsForSender(account.sender.id) });
      // Fired again before anyone confirmed: still held, still nothing mailed.
      expect(await dispatchSingleSend(account.keys.account_id, utr)).toBe('held');
      await localQueueIdle();
      expect(await mailsTo(env.sink, readers)).toEqual([]);

      await confirmAddress(account.keys.account_id, account.sender.id, newAddress);
      await fireJob(account.keys.account_id, utr);
    } finally {
      resetClock();
    }
    const mails = await mailsTo(env.sink, readers);
    expect(mails).toHaveLength(2);
    expect(mails.every((mail) => mail.from === `Acme News <${newAddress}>`)).toBe(true);
    const done = await details(account.keys, utr);
    expect(done).toMatchObject({ status: 3, from_sender: newAddress });
    expect(done).not.toHaveProperty('waiting');
  });

  it('holds a running send whose sender became unverified between two runs', async () => {
    const { account, readers } = await accountWithAudience(3);
    const utr = await createdUtr(account);
    // The first run fans out one page of one recipient, then yields as if its time were up.
    expect(await dispatchSingleSend(account.keys.account_id, utr, { pageSize: 1, shouldYield: () => true })).toBe('yielded');
    await localQueueIdle();
    expect(await mailsTo(env.sink, readers)).toHaveLength(1);
    await changeAddress(account.keys, account.sender.id, uniqueAddress());

    expect(await dispatchSingleSend(account.keys.account_id, utr, { pageSize: 1 })).toBe('held');
    await localQueueIdle();
    expect(await mailsTo(env.sink, readers)).toHaveLength(1);
    expect(await details(account.keys, utr)).toMatchObject({ status: 2, waiting: waitsForSender(account.sender.id) });

    // Confirmed: it resumes from where it stopped, from the new address, and completes.
    const sender = await getSender(account.keys.account_id, account.sender.id);
    await confirmAddress(account.keys.account_id, sender.id, sender.from_email);
    await fireJob(account.keys.account_id, utr);
    const mails = await mailsTo(env.sink, readers);
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([...readers].sort());
    expect(mails.slice(1).every((mail) => mail.from === `Acme News <${sender.from_email}>`)).toBe(true);
    expect(await details(account.keys, utr)).toMatchObject({ status: 3, triggered: 3 });
  });

  it('mails from the new address when it was confirmed before the send ran, copying it into the send', async () => {
    const { account, readers } = await accountWithAudience(1);
    const utr = await createdUtr(account);
    const newAddress = uniqueAddress();
    await changeAddress(account.keys, account.sender.id, newAddress);
    await confirmAddress(account.keys.account_id, account.sender.id, newAddress);

    await fireJob(account.keys.account_id, utr);

    const mails = await mailsTo(env.sink, readers);
    expect(mails.map((mail) => mail.from)).toEqual([`Acme News <${newAddress}>`]);
    expect(await details(account.keys, utr)).toMatchObject({ status: 3, from_sender: newAddress });
  });

  it('ends a running send whose sender was deleted (it cannot be updated any more), saying so', async () => {
    const { account, readers } = await accountWithAudience(2);
    const utr = await createdUtr(account);
    expect(await dispatchSingleSend(account.keys.account_id, utr, { pageSize: 1, shouldYield: () => true })).toBe('yielded');
    await localQueueIdle();
    await deleteSender(account.keys.account_id, account.sender.id);

    expect(await dispatchSingleSend(account.keys.account_id, utr, { pageSize: 1 })).toBe('stopped');
    await localQueueIdle();
    expect(await mailsTo(env.sink, readers)).toHaveLength(1);
    expect(await details(account.keys, utr)).toMatchObject({
      status: 4,
      failure: { reason: 'sender-deleted', message: `Sender ${account.sender.id} was deleted while the send was running; sending has stopped.` },
    });
    expect((await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } })).status).toBe(200);
  });

  it('keeps showing a sender hold while batches queued before it settle; a stall wait ends with them', async () => {
    const { account } = await accountWithAudience(1);
    const accountId = account.keys.account_id;
    const send = await readySend(accountId, { recipient_id: [{ id: String(account.contactTypeId), table: 'contacts_' }] });
    expect(await startDispatch(accountId, send.utr)).toBe(true);
    const since = new Date(Date.now() - 60_000);
    const shown = async () => (await details(account.keys, send.utr)).waiting;
    expect(await holdSend(accountId, send.utr, { reason: 'sender-unverified', message: 'held', retryAt: null, since })).toBe(true);
    // A batch settles after the hold began.
    expect(await saveDispatchPage(accountId, send.utr, { expectedPage: 0, cursor: { source: 0, after: 1 }, batches: 0, recipients: 0, done: false })).toBe(true);
    expect(await shown()).toMatchObject({ reason: 'sender-unverified' });
    expect(await holdSend(accountId, send.utr, { reason: 'resuming', message: 'stalled', retryAt: null, since })).toBe(true);
    expect(await shown()).toBeUndefined();
    expect((await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr: send.utr } })).status).toBe(200);
  });

  it('holds a send whose sender was deleted, saying so', async () => {
    const { account, readers } = await accountWithAudience(1);
    const utr = await createdUtr(account);
    await deleteSender(account.keys.account_id, account.sender.id);

    expect(await dispatchSingleSend(account.keys.account_id, utr)).toBe('held');
    await localQueueIdle();
    expect(await mailsTo(env.sink, readers)).toEqual([]);
    expect(await details(account.keys, utr)).toMatchObject({
      status: 1,
      waiting: {
        reason: 'sender-deleted',
        message: `Sender ${account.sender.id} no longer exists: update the send to name another sender.`,
        retry_at: null,
      },
    });
  });
});
