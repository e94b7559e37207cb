// Single-send create validation through the handler on DynamoDB Local: every message, each missing
// field at once, references to records of the account only, the schedule and the design rules.
import { addContactType } from '../../shared/contact-types/repository';
import { addSegment } from '../../shared/segments/repository';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { json, multipart } from '../support/events';
import {
  addTestSender,
  callSingleSends as call,
  indexed,
  newSendingAccount,
  sendFields,
  utcDateAndTime,
  type SendingAccount,
} from '../support/single-sends';

let account: SendingAccount;

beforeAll(async () => {
  account = await newSendingAccount('Owner');
});

async function createWith(fields: Record<string, string | number>) {
  return call(account.keys, 'POST', 'single/send/create', { body: multipart(fields) });
}

function refused(errors: Record<string, string[]>) {
  return { status: 422, body: { status: 'failed', errors } };
}

/** Valid fields with some left out. */
function without(...names: string[]): Record<string, string | number> {
  const fields = sendFields(account);
  for (const name of names) delete fields[name];
  return fields;
}

const tomorrow = utcDateAndTime(new Date(Date.now() + 24 * 3600_000));

it('lists each missing required field at once, in the order of the spec', async () => {
  const result = await call(account.keys, 'POST', 'single/send/create', { body: multipart({}) });
  expect(result).toEqual(
    refused({
      template_id: ['The template id field is required.'],
      sender_id: ['The sender id field is required.'],
      unsubscribe_group_id: ['The unsubscribe group id field is required.'],
      single_send_name: ['The single send name field is required.'],
      subject: ['The subject field is required.'],
      preheader: ['The preheader field is required.'],
      recipient_id: ['The recipient id field is required.'],
      schedule_type: ['The schedule type field is required.'],
    }),
  );
  expect(Object.keys(result.body.errors as object)).toEqual([
    'template_id',
    'sender_id',
    'unsubscribe_group_id',
    'single_send_name',
    'subject',
    'preheader',
    'recipient_id',
    'schedule_type',
  ]);
});

it('answers each unknown reference with its own message, every bad audience entry by index', async () => {
  const fields = {
    ...without('recipient_id[0]'),
    template_id: 999,
    sender_id: 999,
    unsubscribe_group_id: 999,
    ...indexed('recipient_id', [`contacts_${account.contactTypeId}`, 'contacts_999', 'lists_1', 'segments_999', `segments_${account.segmentId}`]),
    ...indexed('exclude_specific_recipient_id', ['contacts_', `segments_${account.segmentId}`, 'segments_998']),
  };
  expect(await createWith(fields)).toEqual(
    refused({
      template_id: ['The selected template id is invalid.'],
      sender_id: ['The selected sender id is invalid.'],
      unsubscribe_group_id: ['The selected unsubscribe group id is invalid.'],
      'recipient_id.1': ['The selected recipient id.1 is invalid.'],
      'recipient_id.2': ['The selected recipient id.2 is invalid.'],
      'recipient_id.3': ['The selected recipient id.3 is invalid.'],
      'exclude_specific_recipient_id.0': ['The selected exclude specific recipient id.0 is invalid.'],
      'exclude_specific_recipient_id.2': ['The selected exclude specific recipient id.2 is invalid.'],
    }),
  );
});

it("treats another account's sender, group, contact type and segment as unknown", async () => {
  // Prepare: id 2 of each exists only in the other account.
  const own = await newSendingAccount();
  const theirs = await newSendingAccount();
  await addTestSender(theirs.keys.account_id);
  await addUnsubscribeGroup(theirs.keys.account_id, { group_name: 'Second', description: 'Theirs', is_display: 1 });
  const type = await addContactType(theirs.keys.account_id, 'Second');
  await addSegment(theirs.keys.account_id, { contact_type_id: type.id, segment_name: 'Second', conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'x' }] });
  // Act
  const result = await call(own.keys, 'POST', 'single/send/create', {
    body: multipart({ ...sendFields(own), sender_id: 2, unsubscribe_group_id: 2, ...indexed('recipient_id', ['contacts_2', 'segments_2']) }),
  });
  // Assess
  expect(result).toEqual(
    refused({
      sender_id: ['The selected sender id is invalid.'],
      unsubscribe_group_id: ['The selected unsubscribe group id is invalid.'],
      'recipient_id.0': ['The selected recipient id.0 is invalid.'],
      'recipient_id.1': ['The selected recipient id.1 is invalid.'],
    }),
  );
});

it('accepts an unverified sender of the account (the send waits for it: single-sends-sender-rule.test.ts)', async () => {
  const unverified = await addTestSender(account.keys.account_id, { verified: false });
  expect(await createWith({ ...sendFields(account), sender_id: unverified.id })).toEqual({
    status: 200,
    body: { status: 'success', message: { utr: expect.any(String) } },
  });
});

it('needs a date and a time for a scheduled send', async () => {
  expect(await createWith({ ...sendFields(account), schedule_type: 1 })).toEqual(
    refused({
      schedule_date: ['The schedule date field is required when schedule type is 1.'],
      schedule_time: ['The schedule time field is required when schedule type is 1.'],
    }),
  );
});

it.each([
  [{ schedule_date: '2030-02-30', schedule_time: '10:00' }, { schedule_date: ['The schedule date field must match the format Y-m-d.'] }],
  [{ schedule_date: '30-01-2030', schedule_time: '10:00' }, { schedule_date: ['The schedule date field must match the format Y-m-d.'] }],
  [{ schedule_date: '2030-01-30', schedule_time: '24:00' }, { schedule_time: ['The schedule time field must match the format H:i, H:i:s.'] }],
  [{ schedule_date: '2030-01-30', schedule_time: '9:00' }, { schedule_time: ['The schedule time field must match the format H:i, H:i:s.'] }],
  [{ schedule_date: '2020-01-30', schedule_time: '10:00:00' }, { schedule_date: ['The schedule date field must be a date after now.'] }],
])('refuses the schedule %j', async (schedule, errors) => {
  expect(await createWith({ ...sendFields(account), schedule_type: 1, ...schedule })).toEqual(refused(errors));
});

it('refuses a send due earlier today (times are UTC)', async () => {
  const { date, time } = utcDateAndTime(new Date(Date.now() - 60_000));
  expect(await createWith({ ...sendFields(account), schedule_type: 1, schedule_date: date, schedule_time: time })).toEqual(
    refused({ schedule_date: ['The schedule date field must be a date after now.'] }),
  );
});

it('ignores the date and time of an immediate send', async () => {
  const result = await createWith({ ...sendFields(account), schedule_type: 0, schedule_date: 'whenever', schedule_time: tomorrow.time });
  expect(result.status).toBe(200);
  const { body } = await call(account.keys, 'GET', 'single-send/details', { query: { utr: (result.body.message as { utr: string }).utr } });
  expect((body.message as { singleSend: object[] }).singleSend[0]).toMatchObject({ schedule_date: '0000-00-00', schedule_time: '00:00:00' });
});

it.each([
  ['yes', 'The schedule type field must be true or false.'],
  ['2', 'The schedule type field must be true or false.'],
])('refuses schedule_type %s', async (scheduleType, message) => {
  expect(await createWith({ ...sendFields(account), schedule_type: scheduleType })).toEqual(refused({ schedule_type: [message] }));
});

it('refuses both a JSON and an HTML design, and JSON that does not parse', async () => {
  expect(await createWith({ ...sendFields(account), template_json: '{}', template_html: '<p>x</p>' })).toEqual(
    refused({ template_html: ['The template html field prohibits template json from being present.'] }),
  );
  expect(await createWith({ ...sendFields(account), template_json: '{"blocks": [' })).toEqual(
    refused({ template_json: ['The template json field must be a valid JSON string.'] }),
  );
});

it('refuses a recipient list that is not an array, and texts over 255 characters', async () => {
  const result = await call(account.keys, 'POST', 'single/send/create', {
    body: json({ ...sendFields(account), 'recipient_id[0]': undefined, recipient_id: `contacts_${account.contactTypeId}`, subject: 's'.repeat(256) }),
  });
  expect(result).toEqual(
    refused({
      subject: ['The subject field must not be greater than 255 characters.'],
      recipient_id: ['The recipient id field must be an array.'],
    }),
  );
});

it('accepts a JSON body with arrays', async () => {
  const result = await call(account.keys, 'POST', 'single/send/create', {
    body: json({
      template_id: 3,
      sender_id: account.sender.id,
      unsubscribe_group_id: account.groupId,
      single_send_name: 'From JSON',
      subject: 'Hi',
      preheader: 'Hello',
      recipient_id: [`segments_${account.segmentId}`],
      exclude_specific_recipient_id: [],
      schedule_type: 1,
      schedule_date: tomorrow.date,
      schedule_time: tomorrow.time,
    }),
  });
  expect(result).toMatchObject({ status: 200, body: { status: 'success' } });
});
