// Limits of the public pages, through the public-pages handler on DynamoDB Local: repeated views of
// one mail's pixel by one recipient write nothing within the hour, and each recipient link has its
// own request limit on the preference and one-click pages (429 with Retry-After), which leaves every
// other link alone. The clock is fixed, so each test's requests fall in one window.
import { resetConfig } from '../../shared/config';
import { getItem } from '../../shared/table/records';
import { sendEventMarkerKey } from '../../shared/ledger/keys';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { isGloballyUnsubscribed } from '../../shared/suppressions/unsubscribes';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { expectHtmlPage, oneClick, openPage, recipientToken, sendStatistics, storedSingleSend } from '../support/recipient-pages';

const pagesLimit = 2;

let minute = Date.UTC(2031, 0, 1, 9, 0, 0);
function atNewHour(): number {
  minute += 3_600_000;
  const at = minute + 5_000;
  setClock(() => new Date(at));
  return at;
}

beforeAll(() => {
  process.env.PUBLIC_RATE_LIMIT = String(pagesLimit);
  resetConfig();
});

afterAll(() => {
  delete process.env.PUBLIC_RATE_LIMIT;
  resetConfig();
  resetClock();
});

beforeEach(() => {
  atNewHour();
});

test('repeated opens of one mail by one recipient within the hour count once and write nothing', async () => {
  // Prepare
  const { account_id } = await newAccount();
  const ref = await storedSingleSend(account_id);
  const token = recipientToken(ref, 'reader@example.com', 1);
  await openPage('public/open', token);
  const marker = await getItem(sendEventMarkerKey(account_id, encodeSendRef(ref), 'reader@example.com', 'open'));
  const afterFirst = await sendStatistics(ref);

  // Act
  const repeats = [];
  for (let i = 0; i < 5; i++) repeats.push(await openPage('public/open', token));

  // Assess: the same image, the same statistics, and the open marker untouched (no conditional put tried).
  expect(repeats.map((result) => result.statusCode)).toEqual([200, 200, 200, 200, 200]);
  expect(await sendStatistics(ref)).toEqual(afterFirst);
  expect(afterFirst).toMatchObject({ unique_opens: 1, total_opens: 1 });
  expect(await getItem(sendEventMarkerKey(account_id, encodeSendRef(ref), 'reader@example.com', 'open'))).toEqual(marker);
});

test('an open an hour later counts in the total again, not among the unique opens', async () => {
  // Prepare
  const { account_id } = await newAccount();
  const ref = await storedSingleSend(account_id);
  const token = recipientToken(ref, 'reader@example.com', 1);
  await openPage('public/open', token);

  // Act
  atNewHour();
  await openPage('public/open', token);
  await openPage('public/open', token);

  // Assess
  expect(await sendStatistics(ref)).toMatchObject({ unique_opens: 1, total_opens: 2 });
});

test('a link past its limit gets a 429 page with Retry-After; another link is unaffected', async () => {
  // Prepare
  const { account_id } = await newAccount();
  const ref = await storedSingleSend(account_id);
  const busy = recipientToken(ref, 'busy@example.com', 1);
  const quiet = recipientToken(ref, 'quiet@example.com', 1);

  // Act
  const allowed = [];
  for (let i = 0; i < pagesLimit; i++) allowed.push(await openPage('public/preferences', busy));
  const refused = await openPage('public/preferences', busy);
  const other = await openPage('public/preferences', quiet);

  // Assess
  for (const page of allowed) expectHtmlPage(page, 200);
  const html = expectHtmlPage(refused, 429);
  expect(html).toContain('<h1>Too many requests</h1>');
  // The window is a minute and the clock stands 5 s into it.
  expect(refused.headers?.['retry-after']).toBe('55');
  expectHtmlPage(other, 200);
});

test('a one-click POST past the link\'s limit is 429 and changes nothing', async () => {
  // Prepare: the link's two requests of the minute are used by views of its page.
  const { account_id } = await newAccount();
  const ref = await storedSingleSend(account_id);
  const token = recipientToken(ref, 'reader@example.com', null);
  for (let i = 0; i < pagesLimit; i++) await openPage('public/preferences', token);

  // Act
  const refused = await oneClick(token);

  // Assess
  expect(refused.statusCode).toBe(429);
  expect(refused.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'retry-after': '55' });
  expect(refused.body).toBe('Too many requests for this link. Try again in a minute.\n');
  expect(await isGloballyUnsubscribed(account_id, 'reader@example.com')).toBe(false);
});
