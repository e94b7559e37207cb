// A/B subject tests on single sends, through the handlers on DynamoDB Local: the create and update
// fields' messages, the test share mailed first (one subject per equal part), the wait held on the
// send's dispatch job, the winner chosen on people's opens and clicks and sent to the rest, the
// details' `ab_test` block at each step, the test skipped for a small audience, and runs that die at
// the test's turning points resumed without mailing anyone twice.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { seedReferenceData } from '../../shared/reference-data/repository';
import * as progress from '../../shared/single-sends/progress';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { resetClock, setClock } from '../../shared/time';
import { apiEvent, json, multipart } from '../support/events';
import { browserUserAgent } from '../support/recipient-pages';
import { importFixtureContacts, mailsTo, startSendingEnvironment, type SendingEnvironment, type SinkMail } from '../support/sending';
import { callSingleSends as call, indexed, jobName, newSendingAccount, pendingJobTimes, sendFields, type SendingAccount } from '../support/single-sends';

// The real progress module, its writes observable so a test can make one fail (a run that dies there).
jest.mock('../../shared/single-sends/progress', () => {
  const actual = jest.requireActual<typeof progress>('../../shared/single-sends/progress');
  return { ...actual, saveDispatchPage: jest.fn(actual.saveDispatchPage), chooseAbSubject: jest.fn(actual.chooseAbSubject) };
});

let env: SendingEnvironment;
/** How far the test's clock is ahead of the machine's (a wait passes by moving it). */
let ahead = 0;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
  process.env.DISPATCH_PAGE_SIZE = '20';
  resetSendingSettings();
  setClock(() => new Date(Date.now() + ahead));
}, 60_000);

afterAll(async () => {
  resetClock();
  delete process.env.DISPATCH_PAGE_SIZE;
  resetSendingSettings();
  await env.stop();
});

const design = '<!DOCTYPE html><html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/spring">See the spring range</a></p></body></html>';

/** An account whose contact type holds `count` contacts; their addresses in the order a send reads them (by id). */
async function accountWith(count: number): Promise<{ account: SendingAccount; emails: string[] }> {
  const account = await newSendingAccount('A/B');
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `ab-${tag}-${String(i).padStart(4, '0')}@example.com`);
  // Written in this order, so their ids follow it.
  await importFixtureContacts(account.keys.account_id, account.contactTypeId, emails);
  return { account, emails };
}

/** Create an immediate A/B send through the API; its utr. */
async function createAbSend(account: SendingAccount, ab: Record<string, string | number>): Promise<string> {
  const answer = await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, { template_html: design, subject: 'Plain subject', ...ab })) });
  expect(answer.status).toBe(200);
  return (answer.body.message as { utr: string }).utr;
}

const twoSubjects = { ...indexed('ab_subjects', ['Spring is here', 'Our spring range, 20% off']), ab_test_percent: 20, ab_wait_minutes: 1 };

async function details(account: SendingAccount, utr: string): Promise<Record<string, unknown>> {
  const answer = await call(account.keys, 'GET', 'single-send/details', { query: { utr } });
  expect(answer.status).toBe(200);
  return (answer.body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

const dispatch = (account: SendingAccount, utr: string) => dispatchHandler({ accountId: account.keys.account_id, utr, resume: true });

/** A request for one of a mail's links (HTML entities undone), as a desktop browser makes it. */
function follow(link: string): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(link.replace(/&amp;/g, '&'));
  return publicPages(apiEvent({ method: 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams), headers: { 'user-agent': browserUserAgent } }));
}

const pixelOf = (mail: SinkMail) => /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(String(mail.body.html))?.[1] as string;
const linkOf = (mail: SinkMail) => /<a href="([^"]*\/public\/click\?[^"]*)"/.exec(String(mail.body.html))?.[1] as string;

/** Each address's mails' subjects, in the audience's order. */
async function subjectsBy(emails: readonly string[]): Promise<string[][]> {
  const mails = await mailsTo(env.sink, emails);
  return emails.map((email) => mails.filter((mail) => mail.destination.to[0] === email).map((mail) => mail.subject));
}

describe('the create and update fields', () => {
  let account: SendingAccount;
  let utr: string;

  beforeAll(async () => {
    account = await newSendingAccount('A/B fields');
    const created = await call(account.keys, 'POST', 'single/send/create', {
      body: multipart(sendFields(account, { schedule_type: 1, schedule_date: '2099-01-01', schedule_time: '10:00' })),
    });
    utr = (created.body.message as { utr: string }).utr;
  });

  const refused = (errors: Record<string, string[]>) => ({ status: 422, body: { status: 'failed', errors } });

  test.each([
    ['one subject', indexed('ab_subjects', ['Only one']), { ab_subjects: ['The ab subjects field must have between 2 and 5 items.'] }],
    ['six subjects', indexed('ab_subjects', ['1', '2', '3', '4', '5', '6']), { ab_subjects: ['The ab subjects field must have between 2 and 5 items.'] }],
    [
      'a blank, a repeated and a too long subject',
      indexed('ab_subjects', ['First', ' ', 'First', 'x'.repeat(256)]),
      {
        'ab_subjects.1': ['The ab subjects.1 field is required.'],
        'ab_subjects.2': ['The ab subjects.2 field has a duplicate value.'],
        'ab_subjects.3': ['The ab subjects.3 field must not be greater than 255 characters.'],
      },
    ],
    [
      'settings out of range',
      { ...indexed('ab_subjects', ['A', 'B']), ab_test_percent: 9, ab_winner_metric: 'ctr', ab_wait_minutes: 1441 },
      {
        ab_test_percent: ['The ab test percent field must be between 10 and 50.'],
        ab_winner_metric: ['The selected ab winner metric is invalid.'],
        ab_wait_minutes: ['The ab wait minutes field must be between 1 and 1440.'],
      },
    ],
    [
      'settings that are not numbers, and the other bounds',
      { ...indexed('ab_subjects', ['A', 'B']), ab_test_percent: 'half', ab_wait_minutes: 0 },
      { ab_test_percent: ['The ab test percent field must be an integer.'], ab_wait_minutes: ['The ab wait minutes field must be between 1 and 1440.'] },
    ],
    [
      'settings without subjects',
      { ab_test_percent: 30, ab_winner_metric: 'clicks', ab_wait_minutes: 60 },
      {
        ab_test_percent: ['The ab test percent field is prohibited when ab subjects is not present.'],
        ab_winner_metric: ['The ab winner metric field is prohibited when ab subjects is not present.'],
        ab_wait_minutes: ['The ab wait minutes field is prohibited when ab subjects is not present.'],
      },
    ],
  ])('create refuses %s, each field with its message', async (_case, fields, errors) => {
    expect(await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, fields)) })).toEqual(refused(errors));
  });

  test('JSON bodies: subjects that are not a list, or not text', async () => {
    const base = sendFields(account);
    const body = { ...Object.fromEntries(Object.entries(base).filter(([name]) => !name.startsWith('recipient_id'))), recipient_id: [`contacts_${account.contactTypeId}`] };
    expect(await call(account.keys, 'POST', 'single/send/create', { body: json({ ...body, ab_subjects: 'Spring' }) })).toEqual(refused({ ab_subjects: ['The ab subjects field must be an array.'] }));
    expect(await call(account.keys, 'POST', 'single/send/create', { body: json({ ...body, ab_subjects: ['Spring', 7] }) })).toEqual(refused({ 'ab_subjects.1': ['The ab subjects.1 field must be a string.'] }));
  });

  test('update takes a test (defaults where not given), shows it in the details, and drops it when sent without', async () => {
    const update = (fields: Record<string, string | number>) =>
      call(account.keys, 'POST', 'single/send/update', { body: multipart(sendFields(account, { utr, schedule_type: 1, schedule_date: '2099-01-01', schedule_time: '10:00', ...fields })) });
    expect(await update(indexed('ab_subjects', [' Spring ', 'Summer', 'Autumn']))).toEqual({ status: 200, body: { status: 'success', message: { utr } } });
    const zero = { recipients: 0, unique_opens: 0, unique_clicks: 0 };
    expect((await details(account, utr)).ab_test).toEqual({
      status: null,
      metric: 'opens',
      percent: 20,
      wait_minutes: 240,
      variants: [
        { subject: 'Spring', ...zero },
        { subject: 'Summer', ...zero },
        { subject: 'Autumn', ...zero },
      ],
      winner_index: null,
      decided_at: null,
    });
    await update({});
    expect(await details(account, utr)).not.toHaveProperty('ab_test');
  });
});

describe('a send with a test', () => {
  test('200 contacts, 2 subjects, 20%: 20 mailed each subject, the wait held, the subject more people opened goes to the other 160', async () => {
    // Prepare
    const { account, emails } = await accountWith(200);
    const utr = await createAbSend(account, { ...twoSubjects, ab_winner_metric: 'opens' });

    // Act 1: the dispatcher counts the audience and fans out the test share; its mails go out.
    await dispatch(account, utr);
    await localQueueIdle();

    // Assess 1: the first 40 contacts got a subject each, in turns; nobody else was mailed.
    const testShare = await subjectsBy(emails);
    expect(testShare.slice(0, 40)).toEqual(emails.slice(0, 40).map((_, i) => [i % 2 === 0 ? 'Spring is here' : 'Our spring range, 20% off']));
    expect(testShare.slice(40)).toEqual(emails.slice(40).map(() => []));
    expect(await details(account, utr)).toMatchObject({ status: 2, subject: 'Plain subject', ab_test: { status: 'waiting', winner_index: null, decided_at: null } });

    // Act 2: people open: 3 of the first subject's mails, and one of them clicks without the image shown; 8 of the second's.
    const mails = await mailsTo(env.sink, emails.slice(0, 40));
    const bySubject = (subject: string) => emails.slice(0, 40).map((email) => mails.find((mail) => mail.destination.to[0] === email && mail.subject === subject)).filter((mail): mail is SinkMail => mail !== undefined);
    const [first, second] = [bySubject('Spring is here'), bySubject('Our spring range, 20% off')];
    ahead += 5_000;
    for (const mail of first.slice(0, 3)) await follow(pixelOf(mail));
    await follow(linkOf(first[3] as SinkMail));
    for (const mail of second.slice(0, 8)) await follow(pixelOf(mail));

    // Act 3: the job held the send; its next run books the winner's time, a minute after the last test mail.
    await dispatch(account, utr);
    const waiting = await details(account, utr);
    const state = await progress.getDispatchState(account.keys.account_id, utr);

    // Assess 3: due a minute after the test's last mail settled (the send's last progress), its job booked then.
    const decideAt = new Date(Date.parse(String(state?.progressAt)) + 60_000).toISOString();
    expect(state?.ab).toMatchObject({ phase: 'waiting', decideAt });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual([decideAt]);
    expect(waiting).toMatchObject({ status: 2, waiting: { reason: 'ab-test', retry_at: decideAt }, ab_test: { status: 'waiting' } });

    // Act 4: the wait passes; the winner is chosen and the rest is mailed.
    ahead += 61_000;
    await dispatch(account, utr);
    await localQueueIdle();

    // Assess 4: everyone mailed once; the other 160 with the second subject, now the send's subject.
    const all = await subjectsBy(emails);
    expect(all.slice(0, 40)).toEqual(testShare.slice(0, 40));
    expect(all.slice(40)).toEqual(emails.slice(40).map(() => ['Our spring range, 20% off']));
    const done = await details(account, utr);
    expect(done).toMatchObject({ status: 3, subject: 'Our spring range, 20% off', triggered: 200, unique_opens: 11, total_opens: 11, audience: 200, processed: 200 });
    expect(done).not.toHaveProperty('waiting');
    expect(done.ab_test).toEqual({
      status: 'winner_sent',
      metric: 'opens',
      percent: 20,
      wait_minutes: 1,
      variants: [
        { subject: 'Spring is here', recipients: 20, unique_opens: 4, unique_clicks: 1 },
        { subject: 'Our spring range, 20% off', recipients: 20, unique_opens: 8, unique_clicks: 0 },
      ],
      winner_index: 1,
      decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  }, 120_000);

  test('judged on clicks, a tie goes to the lower index', async () => {
    const { account, emails } = await accountWith(100);
    const utr = await createAbSend(account, { ...indexed('ab_subjects', ['One', 'Two']), ab_test_percent: 20, ab_wait_minutes: 1, ab_winner_metric: 'clicks' });
    await dispatch(account, utr);
    await localQueueIdle();
    const mails = await mailsTo(env.sink, emails.slice(0, 20));
    ahead += 5_000;
    // Two clicks each (the second subject's also opened more): a tie on clicks.
    for (const subject of ['One', 'Two']) for (const mail of mails.filter((each) => each.subject === subject).slice(0, 2)) await follow(linkOf(mail));
    for (const mail of mails.filter((each) => each.subject === 'Two').slice(2, 6)) await follow(pixelOf(mail));
    await dispatch(account, utr);
    ahead += 61_000;
    await dispatch(account, utr);
    await localQueueIdle();

    expect((await subjectsBy(emails)).slice(20)).toEqual(emails.slice(20).map(() => ['One']));
    expect((await details(account, utr)).ab_test).toMatchObject({
      status: 'winner_sent',
      variants: [
        { subject: 'One', recipients: 10, unique_opens: 2, unique_clicks: 2 },
        { subject: 'Two', recipients: 10, unique_opens: 6, unique_clicks: 2 },
      ],
      winner_index: 0,
    });
  }, 120_000);

  test('an audience too small for 10 recipients per subject: everyone gets the first subject, and the details say why', async () => {
    const { account, emails } = await accountWith(30);
    const utr = await createAbSend(account, twoSubjects);

    await dispatch(account, utr);
    await localQueueIdle();

    expect(await subjectsBy(emails)).toEqual(emails.map(() => ['Spring is here']));
    const done = await details(account, utr);
    expect(done).toMatchObject({ status: 3, subject: 'Spring is here', triggered: 30 });
    expect(done.ab_test).toEqual({
      status: 'skipped',
      metric: 'opens',
      percent: 20,
      wait_minutes: 1,
      variants: [
        { subject: 'Spring is here', recipients: 0, unique_opens: 0, unique_clicks: 0 },
        { subject: 'Our spring range, 20% off', recipients: 0, unique_opens: 0, unique_clicks: 0 },
      ],
      winner_index: null,
      decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      skipped_reason:
        'The audience of 30 recipients is too small for a test of 2 subjects: 20% of it gives 3 recipients per subject, and a test needs at least 10 per subject (an audience of 100 or more). Everyone was sent the first subject.',
    });
  }, 120_000);

  test('runs that die after the test share is fanned out, and after the winner is recorded: resumed, nobody mailed twice', async () => {
    // Prepare: 100 contacts in pages of 20: 5 pages counted, the end of the count, then the test share (20) in one page.
    const { account, emails } = await accountWith(100);
    const utr = await createAbSend(account, twoSubjects);
    const save = jest.mocked(progress.saveDispatchPage);
    const choose = jest.mocked(progress.chooseAbSubject);
    const realSave = jest.requireActual<typeof progress>('../../shared/single-sends/progress').saveDispatchPage;
    const realChoose = jest.requireActual<typeof progress>('../../shared/single-sends/progress').chooseAbSubject;
    for (let page = 0; page < 6; page++) save.mockImplementationOnce(realSave);
    save.mockRejectedValueOnce(new Error('the Lambda died after fanning out the test share'));
    choose.mockImplementationOnce(async (...args) => {
      await realChoose(...args);
      throw new Error('the Lambda died after recording the winner');
    });

    // Act: the first run dies once the test share is queued; the retry records it and waits.
    await expect(dispatch(account, utr)).rejects.toThrow('the Lambda died after fanning out the test share');
    await dispatch(account, utr);
    await localQueueIdle();
    const mails = await mailsTo(env.sink, emails.slice(0, 20));
    ahead += 5_000;
    for (const mail of mails.filter((each) => each.subject === 'Our spring range, 20% off').slice(0, 3)) await follow(pixelOf(mail));
    await dispatch(account, utr);
    ahead += 61_000;
    // The run that chooses the winner dies right after; its retry goes on with the recorded winner.
    await expect(dispatch(account, utr)).rejects.toThrow('the Lambda died after recording the winner');
    await dispatch(account, utr);
    await localQueueIdle();

    // Assess
    const subjects = await subjectsBy(emails);
    expect(subjects.slice(0, 20)).toEqual(emails.slice(0, 20).map((_, i) => [i % 2 === 0 ? 'Spring is here' : 'Our spring range, 20% off']));
    expect(subjects.slice(20)).toEqual(emails.slice(20).map(() => ['Our spring range, 20% off']));
    expect(await details(account, utr)).toMatchObject({
      status: 3,
      triggered: 100,
      ab_test: {
        status: 'winner_sent',
        variants: [
          { subject: 'Spring is here', recipients: 10, unique_opens: 0, unique_clicks: 0 },
          { subject: 'Our spring range, 20% off', recipients: 10, unique_opens: 3, unique_clicks: 0 },
        ],
        winner_index: 1,
      },
    });
  }, 120_000);
});
