// Single sends' status machine through the handler on DynamoDB Local: update (and re-scheduling),
// delete and bulk delete with their scheduler jobs, and the refusals of running and completed sends.
import { resetConfig } from '../../shared/config';
import { singleSendKey } from '../../shared/single-sends/keys';
import { updateExistingItem } from '../../shared/table/records';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { startDispatch } from '../../shared/single-sends/progress';
import { multipart, urlencoded, type Keys } from '../support/events';
import { useTestTable, type TestTable } from '../support/local-stack';
import {
  addTestSender,
  callSingleSends as call,
  jobName,
  newSendingAccount,
  pendingJobTimes,
  sendFields,
  utcDateAndTime,
  type SendingAccount,
} from '../support/single-sends';

const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
const locked = { status: 409, body: { status: 'failed', errors: 'A single send that is running or completed cannot be updated.' } };

/** A whole minute some days ahead, and its date and time fields. */
function later(days: number): { at: Date; fields: Record<string, string | number> } {
  const at = new Date(Date.now() + days * 24 * 3600_000);
  at.setUTCSeconds(0, 0);
  const { date, time } = utcDateAndTime(at);
  return { at, fields: { schedule_type: 1, schedule_date: date, schedule_time: time } };
}

async function create(account: SendingAccount, overrides: Record<string, string | number> = {}): Promise<string> {
  const result = await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, overrides)) });
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

async function details(keys: Keys, utr: string) {
  return call(keys, 'GET', 'single-send/details', { query: { utr } });
}

async function record(keys: Keys, utr: string): Promise<Record<string, unknown>> {
  const { body } = await details(keys, utr);
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

async function update(account: SendingAccount, utr: string, overrides: Record<string, string | number> = {}) {
  return call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account, overrides), utr }) });
}

async function listUtrs(keys: Keys): Promise<string[]> {
  const { body } = await call(keys, 'GET', 'single-send/list');
  return (body.message as { singleSends: { utr: string }[] }).singleSends.map((send) => send.utr);
}

let table: TestTable;
let stranger: SendingAccount;

beforeAll(async () => {
  table = await useTestTable();
  await seedReferenceData();
  stranger = await newSendingAccount('Stranger');
}, 120_000);

afterAll(async () => {
  await table.stop();
  resetConfig();
});

describe('single/send/update', () => {
  it('replaces the content, re-reads the sender, keeps id, utr and created_at, and moves the job', async () => {
    const account = await newSendingAccount();
    const first = later(2);
    const utr = await create(account, first.fields);
    const before = await record(account.keys, utr);
    const otherSender = await addTestSender(account.keys.account_id);
    const second = later(3);
    // Act
    const result = await update(account, utr, { ...second.fields, single_send_name: 'Renamed', sender_id: otherSender.id, subject: 'New subject' });
    // Assess
    expect(result).toEqual({ status: 200, body: { status: 'success', message: { utr } } });
    const after = await record(account.keys, utr);
    expect(after).toEqual({
      ...before,
      single_send_name: 'Renamed',
      subject: 'New subject',
      sender_id: otherSender.id,
      from_sender: otherSender.from_email,
      schedule_date: second.fields.schedule_date,
      schedule_time: second.fields.schedule_time,
      updated_at: expect.any(String),
    });
    expect(String(after.updated_at) >= String(before.updated_at)).toBe(true);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([second.at.toISOString()]);
  });

  it('turns a scheduled send into an immediate one: the zero date and time, and a job due now', async () => {
    const account = await newSendingAccount();
    const utr = await create(account, later(2).fields);
    const before = Date.now();
    await update(account, utr, { schedule_type: 0 });
    expect(await record(account.keys, utr)).toMatchObject({ schedule_type: 0, schedule_date: '0000-00-00', schedule_time: '00:00:00', status: 1 });
    const [due] = await pendingJobTimes(jobName(account.keys.account_id, utr));
    expect(Date.parse(due as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(due as string)).toBeLessThanOrEqual(Date.now());
  });

  it('makes a duplicated draft (status 0) ready (status 1) and schedules it', async () => {
    const account = await newSendingAccount();
    await create(account);
    await call(account.keys, 'GET', 'single/send/duplicate', { query: { utr: (await listUtrs(account.keys))[0] as string } });
    const draft = (await listUtrs(account.keys))[1] as string;
    expect(await record(account.keys, draft)).toMatchObject({ status: 0 });
    expect(await pendingJobTimes(jobName(account.keys.account_id, draft))).toEqual([]);
    const { at, fields } = later(1);
    expect(await update(account, draft, fields)).toEqual({ status: 200, body: { status: 'success', message: { utr: draft } } });
    expect(await record(account.keys, draft)).toMatchObject({ status: 1 });
    expect(await pendingJobTimes(jobName(account.keys.account_id, draft))).toEqual([at.toISOString()]);
  });

  it('refuses to change a running send (status 2) and a completed one (status 3)', async () => {
    const account = await newSendingAccount();
    const running = await create(account, later(1).fields);
    expect(await startDispatch(account.keys.account_id, running)).toBe(true);
    const completed = await create(account, later(1).fields);
    await updateExistingItem(singleSendKey(account.keys.account_id, completed), { status: 3, sent_at: '2030-01-01 00:00:00' });
    for (const utr of [running, completed]) {
      const before = await record(account.keys, utr);
      expect(await update(account, utr, { single_send_name: 'Too late' })).toEqual(locked);
      expect(await record(account.keys, utr)).toEqual(before);
    }
  });

  it('validates like create, and names a missing utr with the other fields', async () => {
    const account = await newSendingAccount();
    const result = await call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account), subject: '' }) });
    expect(result).toEqual({
      status: 422,
      body: { status: 'failed', errors: { utr: ['The utr field is required.'], subject: ['The subject field is required.'] } },
    });
  });

  it("answers Record not found for an unknown utr and another account's send, which stays as it was", async () => {
    const account = await newSendingAccount();
    const theirs = await create(stranger, { single_send_name: 'Theirs' });
    expect(await update(account, theirs)).toEqual(notFound);
    expect(await update(account, '7c9e6679-7425-40de-944b-e07fc1f90ae7')).toEqual(notFound);
    expect(await record(stranger.keys, theirs)).toMatchObject({ single_send_name: 'Theirs' });
  });
});

describe('single/send/delete', () => {
  it('deletes a scheduled send and cancels its job', async () => {
    const account = await newSendingAccount();
    const utr = await create(account, later(2).fields);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toHaveLength(1);
    const result = await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } });
    expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
    expect(await details(account.keys, utr)).toEqual(notFound);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([]);
  });

  it('deletes a running send, so the pipeline finds it gone before its next batch', async () => {
    const account = await newSendingAccount();
    const utr = await create(account, later(1).fields);
    await startDispatch(account.keys.account_id, utr);
    expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } })).toMatchObject({ status: 200 });
    expect(await listUtrs(account.keys)).toEqual([]);
  });

  it("answers Record not found for an unknown utr, one already deleted and another account's send", async () => {
    const account = await newSendingAccount();
    const utr = await create(account);
    await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } });
    const theirs = await create(stranger);
    for (const target of [utr, theirs, 'nope']) {
      expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr: target } })).toEqual(notFound);
    }
    expect(await listUtrs(stranger.keys)).toContain(theirs);
  });

  it('needs the utr', async () => {
    const result = await call(stranger.keys, 'DELETE', 'single/send/delete');
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
  });
});

describe('single/send/bulk-delete', () => {
  it('deletes sends named by integer id or by utr, and cancels their jobs', async () => {
    const account = await newSendingAccount();
    const [first, second, third] = [await create(account, later(1).fields), await create(account, later(1).fields), await create(account)];
    const result = await call(account.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({ strIds: [1, second as string] }) });
    expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
    expect(await listUtrs(account.keys)).toEqual([third]);
    for (const utr of [first, second]) expect(await pendingJobTimes(jobName(account.keys.account_id, utr as string))).toEqual([]);
  });

  it("deletes nothing when any entry is unknown or another account's", async () => {
    const account = await newSendingAccount();
    const mine = await create(account);
    const theirs = await create(stranger);
    for (const strIds of [[1, 99], [mine, theirs], [1, '7c9e6679-7425-40de-944b-e07fc1f90ae7'], [1, 'garbage']]) {
      expect(await call(account.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({ strIds }) })).toEqual(notFound);
    }
    expect(await listUtrs(account.keys)).toEqual([mine]);
    expect(await listUtrs(stranger.keys)).toContain(theirs);
  });

  it('needs strIds', async () => {
    const result = await call(stranger.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({}) });
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: ['The str ids field is required.'] } } });
  });
});
