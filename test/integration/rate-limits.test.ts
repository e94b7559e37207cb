// The per-account request limit through a real handler on DynamoDB Local: the counter is shared in
// the table, a refusal is 429 in the envelope with Retry-After, and every authenticated answer says
// where the account stands. The clock is fixed, so every request of a test falls in one second.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler } from '../../functions/contact-types/handler';
import { resetConfig } from '../../shared/config';
import { forgetExhaustedWindows } from '../../shared/rate-limits/account-limit';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, type Keys } from '../support/events';

const limit = 3;

async function request(keys: Keys | undefined, path = 'contacts-type', options: { body?: { contentType: string; body: Buffer }; query?: Record<string, string> } = {}): Promise<APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> }> {
  const result = await handler(apiEvent({ method: path === 'contacts-type/add' ? 'POST' : 'GET', path, headers: keys ? authHeaders(keys) : {}, ...options }));
  return { ...result, headers: (result.headers ?? {}) as Record<string, string> };
}

function limitHeaders(result: { headers: Record<string, string> }) {
  return { limit: result.headers['x-ratelimit-limit'], remaining: result.headers['x-ratelimit-remaining'] };
}

// Each test has its own second, so no test sees another's window.
let second = Date.UTC(2030, 0, 1, 12, 0, 0);
function atNewSecond(): number {
  second += 10_000;
  const at = second + 250;
  setClock(() => new Date(at));
  return at;
}

beforeAll(() => {
  process.env.ACCOUNT_RATE_LIMIT = String(limit);
  resetConfig();
});

afterAll(() => {
  delete process.env.ACCOUNT_RATE_LIMIT;
  resetConfig();
  resetClock();
});

beforeEach(() => {
  forgetExhaustedWindows();
  atNewSecond();
});

test('the request past the limit in one second is 429 with Retry-After and the envelope', async () => {
  // Prepare
  const keys = await newAccount();

  // Act
  const allowed = [];
  for (let i = 0; i < limit; i++) allowed.push(await request(keys));
  const refused = await request(keys);

  // Assess
  expect(allowed.map((result) => result.statusCode)).toEqual([200, 200, 200]);
  expect(allowed.map(limitHeaders)).toEqual([
    { limit: '3', remaining: '2' },
    { limit: '3', remaining: '1' },
    { limit: '3', remaining: '0' },
  ]);
  expect(refused.statusCode).toBe(429);
  expect(JSON.parse(refused.body ?? '')).toEqual({ status: 'failed', errors: 'Too many requests: at most 3 per second per account. Try again in 1 second.' });
  expect(refused.headers).toMatchObject({ 'retry-after': '1', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'content-type': 'application/json; charset=utf-8' });
});

test('another account is unaffected in the same second, and the next second lets the first in again', async () => {
  // Prepare
  const busy = await newAccount('Busy');
  const quiet = await newAccount('Quiet');
  for (let i = 0; i <= limit; i++) await request(busy);

  // Act
  const other = await request(quiet);
  const busyAgain = await request(busy);
  atNewSecond();
  const nextSecond = await request(busy);

  // Assess
  expect({ status: other.statusCode, ...limitHeaders(other) }).toEqual({ status: 200, limit: '3', remaining: '2' });
  expect(busyAgain.statusCode).toBe(429);
  expect({ status: nextSecond.statusCode, ...limitHeaders(nextSecond) }).toEqual({ status: 200, limit: '3', remaining: '2' });
});

test('the count is shared: a fresh container still refuses an account that used up its second', async () => {
  // Prepare
  const keys = await newAccount();
  for (let i = 0; i < limit; i++) await request(keys);

  // Act: a new container knows nothing of the window but the table's counter.
  forgetExhaustedWindows();
  const refused = await request(keys);

  // Assess
  expect(refused.statusCode).toBe(429);
});

test('error answers of an authenticated request carry the headers; a refused request is not read', async () => {
  // Prepare
  const keys = await newAccount();

  // Act
  const invalid = await request(keys, 'contacts-type/view');
  const notFound = await request(keys, 'contacts-type/view', { query: { contact_type_id: '999' } });
  await request(keys);
  const refusedBrokenBody = await request(keys, 'contacts-type/add', { body: { contentType: 'application/json', body: Buffer.from('{broken') } });
  const unauthenticated = await request(undefined);

  // Assess
  expect({ status: invalid.statusCode, ...limitHeaders(invalid) }).toEqual({ status: 422, limit: '3', remaining: '2' });
  expect({ status: notFound.statusCode, ...limitHeaders(notFound) }).toEqual({ status: 404, limit: '3', remaining: '1' });
  expect(refusedBrokenBody.statusCode).toBe(429);
  expect(limitHeaders(refusedBrokenBody)).toEqual({ limit: '3', remaining: '0' });
  expect(unauthenticated.statusCode).toBe(401);
  expect(unauthenticated.headers['x-ratelimit-limit']).toBeUndefined();
});

test('with ACCOUNT_RATE_LIMIT=off no request is refused, counted or given the headers', async () => {
  // Prepare
  const keys = await newAccount();
  process.env.ACCOUNT_RATE_LIMIT = 'off';
  resetConfig();

  // Act
  const results = [];
  try {
    for (let i = 0; i <= limit + 2; i++) results.push(await request(keys));
  } finally {
    process.env.ACCOUNT_RATE_LIMIT = String(limit);
    resetConfig();
  }

  // Assess
  expect(results.map((result) => result.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(results.map(limitHeaders)).toEqual(results.map(() => ({ limit: undefined, remaining: undefined })));
});
