// `schedule_timezone` on single/send/create and update through the handler on DynamoDB Local: the
// local date and time are read in the zone (the job is due at that instant), details echo the zone,
// an update without it goes back to UTC, and every refusal has its own message.
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { json, multipart, type Keys } from '../support/events';
import { useTestTable, type TestTable } from '../support/local-stack';
import { callSingleSends as call, jobName, newSendingAccount, pendingJobTimes, sendFields, utcDateAndTime, type SendingAccount } from '../support/single-sends';

let table: TestTable;
let account: SendingAccount;

beforeAll(async () => {
  table = await useTestTable();
  await seedReferenceData();
  account = await newSendingAccount('Zoned');
}, 120_000);

afterAll(async () => {
  await table.stop();
  resetConfig();
});

function refused(errors: Record<string, string[]>) {
  return { status: 422, body: { status: 'failed', errors } };
}

async function create(fields: Record<string, string | number>) {
  return call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, fields)) });
}

async function createdUtr(fields: Record<string, string | number>): Promise<string> {
  const result = await create(fields);
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

async function details(keys: Keys, utr: string): Promise<Record<string, unknown>> {
  const { body } = await call(keys, 'GET', 'single-send/details', { query: { utr } });
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

// Far enough ahead to be in the future whatever the zone, on dates whose offsets are known.
const berlinSummer = { schedule_type: 1, schedule_date: '2031-07-01', schedule_time: '10:00' };
const berlinSpringGap = { schedule_type: 1, schedule_date: '2031-03-30', schedule_time: '02:30' };
const berlinAutumnTwice = { schedule_type: 1, schedule_date: '2031-10-26', schedule_time: '02:30' };

describe('schedule_timezone', () => {
  it('reads the date and time in the zone: the job is due at that instant, and details echo the zone and the local time', async () => {
    const utr = await createdUtr({ ...berlinSummer, schedule_timezone: 'Europe/Berlin' });

    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual(['2031-07-01T08:00:00.000Z']);
    const shown = await details(account.keys, utr);
    expect(shown).toMatchObject({ schedule_type: 1, schedule_date: '2031-07-01', schedule_time: '10:00:00', schedule_timezone: 'Europe/Berlin', status: 1 });
    // The zone follows the time in the record's field order.
    const keys = Object.keys(shown);
    expect(keys.slice(keys.indexOf('schedule_time'), keys.indexOf('schedule_time') + 2)).toEqual(['schedule_time', 'schedule_timezone']);
  });

  it('leaves it out of details when none was given (UTC, as before)', async () => {
    const utr = await createdUtr(berlinSummer);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual(['2031-07-01T10:00:00.000Z']);
    expect(await details(account.keys, utr)).not.toHaveProperty('schedule_timezone');
  });

  it('takes the earlier instance of a time that happens twice when the clocks go back', async () => {
    const utr = await createdUtr({ ...berlinAutumnTwice, schedule_timezone: 'Europe/Berlin' });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual(['2031-10-26T00:30:00.000Z']);
  });

  it('keeps the zone in its own spelling, and echoes it on an immediate send too', async () => {
    const utr = await createdUtr({ schedule_type: 0, schedule_timezone: 'america/new_york' });
    expect(await details(account.keys, utr)).toMatchObject({ schedule_date: '0000-00-00', schedule_time: '00:00:00', schedule_timezone: 'America/New_York' });
  });

  it('is replaced by an update: another zone moves the job, none goes back to UTC', async () => {
    const utr = await createdUtr({ ...berlinSummer, schedule_timezone: 'Europe/Berlin' });
    const update = (fields: Record<string, string | number>) =>
      call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account, fields), utr }) });

    expect(await update({ ...berlinSummer, schedule_timezone: 'Asia/Tokyo' })).toEqual({ status: 200, body: { status: 'success', message: { utr } } });
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual(['2031-07-01T01:00:00.000Z']);
    expect(await details(account.keys, utr)).toMatchObject({ schedule_timezone: 'Asia/Tokyo' });

    expect((await update(berlinSummer)).status).toBe(200);
    expect(await pendingJobTimes(jobName(account.keys.account_id, utr))).toEqual(['2031-07-01T10:00:00.000Z']);
    expect(await details(account.keys, utr)).not.toHaveProperty('schedule_timezone');
  });

  it.each(['Mars/Olympus', 'CET', '+01:00', 'Europe/Berlinn'])('refuses %j with the timezone message', async (zone) => {
    expect(await create({ ...berlinSummer, schedule_timezone: zone })).toEqual(refused({ schedule_timezone: ['The schedule timezone field must be a valid timezone.'] }));
  });

  it('refuses a zone that is not text', async () => {
    const result = await call(account.keys, 'POST', 'single/send/create', {
      body: json({ ...sendFields(account, berlinSummer), recipient_id: [`contacts_${account.contactTypeId}`], schedule_timezone: 1 }),
    });
    expect(result).toEqual(refused({ schedule_timezone: ['The schedule timezone field must be a string.'] }));
  });

  it('refuses a local time the clocks skip in that zone', async () => {
    expect(await create({ ...berlinSpringGap, schedule_timezone: 'Europe/Berlin' })).toEqual(
      refused({ schedule_time: ['The schedule time field must be a time that exists in Europe/Berlin on 2031-03-30: the clocks skip it.'] }),
    );
    // The same wall time is fine in UTC.
    expect((await create(berlinSpringGap)).status).toBe(200);
  });

  it('judges "after now" on the instant in the zone: an hour ahead in UTC is past in Tokyo', async () => {
    const { date, time } = utcDateAndTime(new Date(Date.now() + 3600_000));
    expect(await create({ schedule_type: 1, schedule_date: date, schedule_time: time, schedule_timezone: 'Asia/Tokyo' })).toEqual(
      refused({ schedule_date: ['The schedule date field must be a date after now.'] }),
    );
    expect((await create({ schedule_type: 1, schedule_date: date, schedule_time: time, schedule_timezone: 'America/Los_Angeles' })).status).toBe(200);
  });

  it('names a bad zone together with the other failing fields, in the spec order', async () => {
    const result = await call(account.keys, 'POST', 'single/send/create', {
      body: multipart({ ...sendFields(account, { schedule_type: 1, schedule_date: '2031-02-30', schedule_time: '10:00', schedule_timezone: 'Nowhere/Land' }), subject: '' }),
    });
    expect(result).toEqual(
      refused({
        subject: ['The subject field is required.'],
        schedule_date: ['The schedule date field must match the format Y-m-d.'],
        schedule_timezone: ['The schedule timezone field must be a valid timezone.'],
      }),
    );
    expect(Object.keys(result.body.errors as object)).toEqual(['subject', 'schedule_date', 'schedule_timezone']);
  });
});
