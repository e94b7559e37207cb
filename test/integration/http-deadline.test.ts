// The request pipeline answers before API Gateway gives up (30 s): a request still running when the
// function's remaining time (the Lambda context's) reaches the reserve is answered 503 in the envelope,
// with the account's request-limit headers once it has them. Time is the test's: the remaining time
// is a given figure and the deadline's timer a fake one, so nothing depends on the machine's speed.
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler } from '../../functions/contact-types/handler';
import { resetConfig } from '../../shared/config';
import { accountOperation, deadlineReserveMs, httpHandler, type Operation } from '../../shared/http/pipeline';
import type { Reply } from '../../shared/http/reply';
import { forgetExhaustedWindows } from '../../shared/rate-limits/account-limit';
import { routesOf } from '../../shared/routes';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, type Keys } from '../support/events';

const limit = 5;

/** A context whose remaining time is `remainingMs`, whenever asked. */
const contextWith = (remainingMs: number): Context => ({ awsRequestId: 'deadline-test', getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

const listTypes = (keys: Keys) => apiEvent({ method: 'GET', path: 'contacts-type', headers: authHeaders(keys) });

const headersOf = (result: APIGatewayProxyStructuredResultV2): Record<string, unknown> => (result.headers ?? {}) as Record<string, unknown>;

const lateAnswer = {
  statusCode: 503,
  body: JSON.stringify({ status: 'failed', errors: 'The request did not finish in time. Try again later.' }),
};

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
  // One second for all of a test's requests, so the request limit's counter is the test's alone.
  const at = Date.UTC(2031, 0, 1, 12, 0, 0) + Math.floor(Math.random() * 1_000_000) * 1_000 + 250;
  setClock(() => new Date(at));
});

afterEach(() => {
  jest.useRealTimers();
});

test('with no more time than the reserve, the request is answered 503 at once and nothing of it runs', async () => {
  // Prepare
  const keys = await newAccount();

  // Act
  const late = await handler(listTypes(keys), contextWith(deadlineReserveMs));
  const next = await handler(listTypes(keys), contextWith(29_000));

  // Assess
  expect(late).toEqual({ ...lateAnswer, headers: { 'content-type': 'application/json; charset=utf-8', 'Retry-After': '5' } });
  // The late request took nothing of the account's request limit: the next one is the second's first.
  expect(next.statusCode).toBe(200);
  expect(headersOf(next)).toMatchObject({ 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(limit - 1) });
});

test('an operation still running at the deadline is answered 503 with the account\'s request-limit headers', async () => {
  // Prepare: every operation of the family starts and never finishes.
  const keys = await newAccount();
  let started: () => void = () => undefined;
  const operationStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const hanging = accountOperation(() => {
    started();
    return new Promise<Reply>(() => undefined);
  });
  const operations: Record<string, Operation> = Object.fromEntries(routesOf('contact-types').map((route) => [route.operation, hanging]));
  const slowHandler = httpHandler('contact-types', operations);
  // Only the deadline's timer is faked: the table calls run as ever.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance', 'Date', 'setInterval', 'clearInterval'] });
  const budgetMs = 20_000;

  // Act
  let answer: APIGatewayProxyStructuredResultV2 | undefined;
  const answered = slowHandler(listTypes(keys), contextWith(deadlineReserveMs + budgetMs)).then((result) => {
    answer = result;
  });
  await operationStarted;
  await jest.advanceTimersByTimeAsync(budgetMs - 1);
  const beforeDeadline = answer;
  await jest.advanceTimersByTimeAsync(1);
  await answered;

  // Assess
  expect(beforeDeadline).toBeUndefined();
  expect(answer).toEqual({
    ...lateAnswer,
    headers: { 'content-type': 'application/json; charset=utf-8', 'Retry-After': '5', 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(limit - 1) },
  });
});

test('a request that finishes first is answered as ever, and leaves no deadline timer behind', async () => {
  // Prepare
  const keys = await newAccount();
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'hrtime', 'performance', 'Date', 'setInterval', 'clearInterval'] });

  // Act
  const result = await handler(listTypes(keys), contextWith(29_000));

  // Assess
  expect(result.statusCode).toBe(200);
  expect(JSON.parse(result.body as string)).toEqual({ status: 'success', message: { contactTypes: [], next_cursor: null } });
  expect(jest.getTimerCount()).toBe(0);
});
