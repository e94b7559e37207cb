// No test trips the per-account request limit unless it tests that limit: one account's requests
// within one second (the clock fixed, as a fast machine would send them) all pass, as many as the
// busiest test file sends (contacts-sharding pages a list of 2,500 contacts in more than 50 requests).
// The limit comes from the suite's setup (test/support/suite-limits.ts), not from this file.
import { handler } from '../../functions/contact-types/handler';
import { resetConfig } from '../../shared/config';
import { forgetExhaustedWindows } from '../../shared/rate-limits/account-limit';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders } from '../support/events';

afterAll(() => {
  resetClock();
  resetConfig();
});

test('200 requests of one account in one second are all answered, under the suite\'s limit', async () => {
  // Prepare
  resetConfig();
  forgetExhaustedWindows();
  const keys = await newAccount();
  const at = Date.UTC(2031, 5, 1, 9, 0, 0) + 100;
  setClock(() => new Date(at));

  // Act
  const statuses: number[] = [];
  let lastLimit: string | undefined;
  for (let i = 0; i < 200; i++) {
    const result = await handler(apiEvent({ method: 'GET', path: 'contacts-type', headers: authHeaders(keys) }));
    statuses.push(result.statusCode ?? 0);
    lastLimit = (result.headers as Record<string, string> | undefined)?.['x-ratelimit-limit'];
  }

  // Assess
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
  expect(Number(lastLimit)).toBeGreaterThanOrEqual(100_000);
});
