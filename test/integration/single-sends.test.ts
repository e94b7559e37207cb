// Single sends through the Lambda handler on DynamoDB Local: create, list, details and duplicate with
// their exact bodies, the stored record's every field, the scheduler job a send gets, and credentials.
import { awsCallWatcher, watchAwsCalls, type StoodInCall } from '../../shared/aws-call-watch';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { multipart, type Keys } from '../support/events';
import { useTestTable, type TestTable } from '../support/local-stack';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';
import {
  callSingleSends as call,
  indexed,
  jobName,
  newSendingAccount,
  pendingJobTimes,
  sendFields,
  takeJob,
  utcDateAndTime,
  type SendingAccount,
} from '../support/single-sends';

/** The AWS calls the local stand-ins report while `work` runs (the recorder of the IAM check, if any, still gets them). */
async function standInCalls(work: () => Promise<unknown>): Promise<StoodInCall[]> {
  const previous = awsCallWatcher();
  const calls: StoodInCall[] = [];
  watchAwsCalls({
    clientBuilt: (client) => previous?.clientBuilt(client),
    standIn: (call, run) => {
      calls.push(call);
      return previous ? previous.standIn(call, run) : run();
    },
  });
  try {
    await work();
  } finally {
    watchAwsCalls(previous);
  }
  return calls;
}

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };

async function create(account: SendingAccount, overrides: Record<string, string | number> = {}): Promise<string> {
  const result = await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, overrides)) });
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

async function details(keys: Keys, utr: string): Promise<Record<string, unknown>> {
  const { body } = await call(keys, 'GET', 'single-send/details', { query: { utr } });
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

async function list(keys: Keys): Promise<Record<string, unknown>[]> {
  const { body } = await call(keys, 'GET', 'single-send/list');
  return (body.message as { singleSends: Record<string, unknown>[] }).singleSends;
}

let table: TestTable;
let account: SendingAccount;
let stranger: SendingAccount;

beforeAll(async () => {
  // A table of this file's own, so the scheduler's pending jobs read here are only this file's.
  table = await useTestTable();
  await seedReferenceData();
  account = await newSendingAccount('Owner');
  stranger = await newSendingAccount('Stranger');
}, 120_000);

afterAll(async () => {
  await table.stop();
  resetConfig();
});

describe('single/send/create and single-send/details', () => {
  it('creates an immediate send: the utr, every spec field in order, and a dispatcher job due now', async () => {
    const own = await newSendingAccount();
    const before = Date.now();
    // Act
    let created: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await standInCalls(async () => {
      created = await call(own.keys, 'POST', 'single/send/create', { body: multipart(sendFields(own)) });
    });
    const after = Date.now();
    // Started, not scheduled: deployed, the dispatcher is invoked at once (a schedule due now fires 5-65 s later).
    expect(calls.filter((reported) => reported.service === 'lambda' || reported.service === 'scheduler')).toEqual([
      { service: 'lambda', operation: 'Invoke', input: { Target: 'send-dispatch', InvocationType: 'Event' } },
    ]);
    // Assess
    expect(created).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.stringMatching(uuid) } } });
    const utr = (created?.body.message as { utr: string }).utr;
    const shown = await call(own.keys, 'GET', 'single-send/details', { query: { utr } });
    const record = {
      id: 1,
      user_id: own.keys.account_id,
      template_id: 2,
      sender_id: own.sender.id,
      unsubscribe_group_id: own.groupId,
      recipient_id: [{ id: String(own.contactTypeId), table: 'contacts_' }],
      exclude_specific_recipient_id: [],
      single_send_name: 'Spring news',
      subject: 'Hello ((first_name))',
      preheader: 'What is new this spring',
      from_sender: own.sender.from_email,
      reply_to: 'support@acme.example',
      sender_name: 'Acme News',
      sender_address: '1 Main Street, Suite 100, Los Angeles, California, 90001, United States',
      schedule_type: 0,
      schedule_date: '0000-00-00',
      schedule_time: '00:00:00',
      status: 1,
      utr,
      template_json: null,
      template_html: null,
      triggered: 0,
      delivered: 0,
      unique_opens: 0,
      total_opens: 0,
      bounces: 0,
      unsubscribes: 0,
      unique_open_token: {},
      sent_at: null,
      created_at: expect.stringMatching(timestamp),
      updated_at: expect.stringMatching(timestamp),
      resend_of: null,
      uncertain: 0,
    };
    expect(shown).toEqual({ status: 200, body: { status: 'success', message: { singleSend: [record] } } });
    expect(Object.keys((shown.body.message as { singleSend: object[] }).singleSend[0] as object)).toEqual(Object.keys(record));
    const [due] = await pendingJobTimes(jobName(own.keys.account_id, utr));
    expect(Date.parse(due as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(due as string)).toBeLessThanOrEqual(after);
    const job = await takeJob(jobName(own.keys.account_id, utr), new Date(due as string));
    expect(job).toMatchObject({ target: 'send-dispatch', attempts: 0 });
    expect(JSON.parse(job?.input as string)).toEqual({ accountId: own.keys.account_id, utr });
  });

  it('creates a scheduled send: its UTC date and time stored, the time with seconds, and its job due then', async () => {
    const at = new Date(Date.now() + 2 * 24 * 3600_000);
    at.setUTCSeconds(0, 0);
    const { date, time } = utcDateAndTime(at);
    let utr = '';
    const calls = await standInCalls(async () => {
      utr = await create(account, { schedule_type: 1, schedule_date: date, schedule_time: time.slice(0, 5) });
    });
    // A schedule (the stand-in reports the create and the update a taken name would need), no invoke.
    expect(calls.filter((reported) => reported.service === 'lambda' || reported.service === 'scheduler').map((reported) => `${reported.service} ${reported.operation}`)).toEqual([
      'scheduler CreateSchedule',
      'scheduler UpdateSchedule',
    ]);
    expect(await details(account.keys, utr)).toMatchObject({ schedule_type: 1, schedule_date: date, schedule_time: time, status: 1 });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([at.toISOString()]);
  });

  it('stores segments and exclusions as {id, table} entries, each entry once', async () => {
    const fields = sendFields(account, {
      ...indexed('recipient_id', [`contacts_${account.contactTypeId}`, `segments_${account.segmentId}`, `contacts_${account.contactTypeId}`]),
      ...indexed('exclude_specific_recipient_id', [`segments_${account.segmentId}`]),
    });
    const created = await call(account.keys, 'POST', 'single/send/create', { body: multipart(fields) });
    const record = await details(account.keys, (created.body.message as { utr: string }).utr);
    expect(record.recipient_id).toEqual([
      { id: String(account.contactTypeId), table: 'contacts_' },
      { id: String(account.segmentId), table: 'segments_' },
    ]);
    expect(record.exclude_specific_recipient_id).toEqual([{ id: String(account.segmentId), table: 'segments_' }]);
  });

  it('keeps the custom design given and leaves the other one empty', async () => {
    const html = '<p>Hi ((first_name))</p>';
    const withHtml = await details(account.keys, await create(account, { template_id: 1, template_html: html }));
    const withJson = await details(account.keys, await create(account, { template_id: 1, template_json: '{"blocks":[]}' }));
    expect(withHtml).toMatchObject({ template_id: 1, template_html: html, template_json: '' });
    expect(withJson).toMatchObject({ template_id: 1, template_json: '{"blocks":[]}', template_html: '' });
  });

  it('answers Record not found for an unknown utr, a malformed one and another account\'s send', async () => {
    const theirs = await create(stranger);
    for (const utr of ['7c9e6679-7425-40de-944b-e07fc1f90ae7', 'not-a-utr', theirs]) {
      expect(await call(account.keys, 'GET', 'single-send/details', { query: { utr } })).toEqual(notFound);
    }
  });

  it('needs the utr', async () => {
    const result = await call(account.keys, 'GET', 'single-send/details');
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
  });
});

describe('single-send/list', () => {
  it('lists the account\'s sends in id order, and nothing of another account', async () => {
    const own = await newSendingAccount();
    const first = await create(own, { single_send_name: 'First' });
    const second = await create(own, { single_send_name: 'Second' });
    await create(stranger, { single_send_name: 'Not mine' });
    const result = await call(own.keys, 'GET', 'single-send/list');
    expect(result.status).toBe(200);
    const sends = (result.body.message as { singleSends: Record<string, unknown>[] }).singleSends;
    expect(sends.map((send) => [send.id, send.utr, send.single_send_name])).toEqual([
      [1, first, 'First'],
      [2, second, 'Second'],
    ]);
    // The details add `resend_of` (null: not a resend) and `uncertain` (recipients whose outcome is unknown) to the listed record.
    expect({ ...sends[0], resend_of: null, uncertain: 0 }).toEqual(await details(own.keys, first));
  });

  it('answers an empty list for a new account', async () => {
    const own = await newSendingAccount();
    expect(await call(own.keys, 'GET', 'single-send/list')).toEqual({ status: 200, body: { status: 'success', message: { singleSends: [], next_cursor: null } } });
  });
});

describe('single/send/duplicate', () => {
  it.each(['GET', 'POST'])('copies a send as a draft by %s: new id and utr, zeroed statistics, no job', async (method) => {
    const own = await newSendingAccount();
    const utr = await create(own, { single_send_name: 'Launch' });
    const result = await call(own.keys, method, 'single/send/duplicate', { query: { utr } });
    expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Duplicated Successfully' } });
    const [original, copy] = await list(own.keys);
    expect(copy).toEqual({
      ...original,
      id: 2,
      utr: expect.stringMatching(uuid),
      single_send_name: 'Launch (copy)',
      status: 0,
      sent_at: null,
      created_at: expect.stringMatching(timestamp),
      updated_at: expect.stringMatching(timestamp),
    });
    expect(copy?.utr).not.toBe(utr);
    expect(await pendingJobTimes(jobName(own.keys.account_id, copy?.utr as string))).toEqual([]);
  });

  it('answers Record not found for an unknown utr and for another account\'s send', async () => {
    const theirs = await create(stranger);
    expect(await call(account.keys, 'GET', 'single/send/duplicate', { query: { utr: theirs } })).toEqual(notFound);
    expect(await call(account.keys, 'POST', 'single/send/duplicate', { query: { utr: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } })).toEqual(notFound);
    expect((await list(stranger.keys)).filter((send) => send.status === 0)).toEqual([]);
  });

  it('needs the utr', async () => {
    const result = await call(account.keys, 'GET', 'single/send/duplicate');
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
  });
});

describe('credentials', () => {
  it.each([
    ['GET', 'single-send/list'],
    ['POST', 'single/send/create'],
    ['GET', 'single-send/details'],
    ['DELETE', 'single/send/delete'],
  ])('answers 401 with both messages when both headers are missing (%s %s)', async (method, path) => {
    const result = await call(undefined, method, path);
    expect(result).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
  });

  it('refuses a wrong secret', async () => {
    const result = await call({ public_key: account.keys.public_key, secret_key: stranger.keys.secret_key }, 'GET', 'single-send/list');
    expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
  });
});

describe('single-send/list paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [own, other] = [await newSendingAccount(), await newSendingAccount()];
    for (let i = 1; i <= 5; i++) await create(own, { single_send_name: `Send ${i}` });
    for (let i = 1; i <= 2; i++) await create(other);
    const listCall: ListCall = (keys, query) => call(keys, 'GET', 'single-send/list', { query });
    await expectFiveItemsToPage({ call: listCall, listName: 'singleSends', owner: own.keys, foreign: { call: listCall, keys: other.keys } });
  });
});
