// Idempotency-Key on authenticated POSTs, through the real handlers on DynamoDB Local: a repeat
// replays the first answer and does nothing else, a different request under the key is 422, a key
// in use is 409, and one account's keys never touch another's.
import { handler as contactTypes } from '../../functions/contact-types/handler';
import { apiEvent, authHeaders, multipart, parsed, urlencoded, type Keys } from '../support/events';
import { callSingleSends, newSendingAccount, sendFields, type SendingAccount } from '../support/single-sends';
import { runIdempotently } from '../../shared/http/idempotency';
import { newAccount } from '../support/accounts';

const later = { schedule_type: 1, schedule_date: '2099-03-01', schedule_time: '09:00:00' };

function create(account: SendingAccount, key: string | undefined, overrides: Record<string, string | number> = {}) {
  return callSingleSends(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, { ...later, ...overrides })), headers: key === undefined ? {} : { 'Idempotency-Key': key } });
}

async function sendNames(account: SendingAccount): Promise<string[]> {
  const { body } = await callSingleSends(account.keys, 'GET', 'single-send/list');
  return (body.message as { singleSends: { single_send_name: string }[] }).singleSends.map((send) => send.single_send_name);
}

async function addType(keys: Keys, name: string, key?: string) {
  const result = await contactTypes(apiEvent({ method: 'POST', path: 'contacts-type/add', body: urlencoded({ name }), headers: { ...authHeaders(keys), ...(key ? { 'idempotency-key': key } : {}) } }));
  return { ...parsed(result), headers: (result.headers ?? {}) as Record<string, string> };
}

test('single/send/create twice with one key answers the same utr twice and creates one send', async () => {
  // Prepare
  const account = await newSendingAccount();

  // Act
  const first = await create(account, 'create-spring-news-1');
  const again = await create(account, 'create-spring-news-1');

  // Assess
  expect(first.status).toBe(200);
  expect(again).toEqual(first);
  expect(await sendNames(account)).toEqual(['Spring news']);
});

test('a replay says so in Idempotent-Replayed, keeps the first answer\'s headers, and carries the current limit headers', async () => {
  // Prepare
  const keys = await newAccount();

  // Act
  const first = await addType(keys, 'Members', 'type-members');
  const replay = await addType(keys, 'Members', 'type-members');

  // Assess
  expect(first.body).toEqual({ status: 'success', message: 'Added Successfully' });
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(replay.body).toEqual(first.body);
  expect(replay.headers).toMatchObject({ 'idempotent-replayed': 'true', 'content-type': 'application/json; charset=utf-8' });
  expect(replay.headers['x-ratelimit-limit']).toBeDefined();
});

test('a multipart retry with a new boundary is the same request', async () => {
  // Prepare
  const account = await newSendingAccount();
  const first = await create(account, 'boundary-retry');

  // Act: multipart() draws a new boundary each time; the fields are the same, in another order too.
  const fields = sendFields(account, later);
  const reordered = Object.fromEntries(Object.entries(fields).reverse());
  const again = await callSingleSends(account.keys, 'POST', 'single/send/create', { body: multipart(reordered), headers: { 'Idempotency-Key': 'boundary-retry' } });

  // Assess
  expect(again).toEqual(first);
  expect(await sendNames(account)).toEqual(['Spring news']);
});

test('the same key with a different request answers 422 and changes nothing', async () => {
  // Prepare
  const account = await newSendingAccount();
  await create(account, 'reused-key');

  // Act
  const other = await create(account, 'reused-key', { single_send_name: 'Autumn news' });

  // Assess
  expect(other).toEqual({ status: 422, body: { status: 'failed', errors: { 'Idempotency-Key': ['The Idempotency-Key was used with a different request.'] } } });
  expect(await sendNames(account)).toEqual(['Spring news']);
});

test('the same key sent twice at once: one 409 in progress, or both the same answer; one send either way', async () => {
  // Prepare
  const account = await newSendingAccount();

  // Act
  const [a, b] = await Promise.all([create(account, 'parallel-key'), create(account, 'parallel-key')]);

  // Assess
  const answers = [a, b].sort((x, y) => x.status - y.status);
  if (answers[1]?.status === 409) {
    expect(answers[0]?.status).toBe(200);
    expect(answers[1]).toEqual({ status: 409, body: { status: 'failed', errors: 'A request with this Idempotency-Key is in progress.' } });
  } else {
    expect(a).toEqual(b);
  }
  expect(await sendNames(account)).toEqual(['Spring news']);
});

test('a validation failure is kept and replayed too; a key is 1 to 255 printable ASCII characters', async () => {
  // Prepare
  const keys = await newAccount();

  // Act
  const invalid = await addType(keys, '', 'empty-name');
  const replayed = await addType(keys, '', 'empty-name');
  const tooLong = await addType(keys, 'Long', 'k'.repeat(256));
  const control = await addType(keys, 'Tab', 'tab\there');
  const longest = await addType(keys, 'Longest', 'k'.repeat(255));

  // Assess
  expect(invalid.status).toBe(422);
  expect(replayed).toMatchObject({ status: 422, body: invalid.body, headers: { 'idempotent-replayed': 'true' } });
  const badKey = { status: 422, body: { status: 'failed', errors: { 'Idempotency-Key': ['The Idempotency-Key must be 1 to 255 printable ASCII characters.'] } } };
  expect(tooLong).toMatchObject(badKey);
  expect(control).toMatchObject(badKey);
  expect(longest.status).toBe(200);
});

test('one account\'s key never affects another\'s, and requests without the header are not deduplicated', async () => {
  // Prepare
  const own = await newAccount('Own');
  const other = await newAccount('Other');
  await addType(own, 'Shared key', 'same-key');

  // Act
  const otherFirst = await addType(other, 'Shared key', 'same-key');
  const plainOne = await addType(own, 'Plain');
  const plainTwo = await addType(own, 'Plain again');

  // Assess
  expect(otherFirst.status).toBe(200);
  expect(otherFirst.headers['idempotent-replayed']).toBeUndefined();
  expect([plainOne.status, plainTwo.status]).toEqual([200, 200]);
  expect(plainTwo.headers['idempotent-replayed']).toBeUndefined();
});

test('an answer of 500 or more is not kept: a retry with the key runs again', async () => {
  // Prepare
  const { account_id: accountId } = await newAccount();
  const request = { method: 'POST', path: 'contacts-type/add', query: {}, pathParameters: {}, headers: { 'Idempotency-Key': 'flaky' }, fields: { name: 'X' }, files: [], requestId: 'r', sourceIp: '127.0.0.1' };
  let runs = 0;
  const answering = (statusCode: number) => async () => {
    runs += 1;
    return { statusCode, body: '{}' };
  };

  // Act
  const failed = await runIdempotently(accountId, request, answering(500));
  const retried = await runIdempotently(accountId, request, answering(200));
  const replayed = await runIdempotently(accountId, request, answering(200));

  // Assess
  expect([failed.statusCode, retried.statusCode, replayed.statusCode]).toEqual([500, 200, 200]);
  expect(runs).toBe(2);
  expect(replayed.headers).toEqual({ 'idempotent-replayed': 'true' });
});
