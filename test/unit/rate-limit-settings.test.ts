// The request-limit settings as shared/config.ts reads them, and the counter keys the limits write.
import { config, resetConfig } from '../../shared/config';
import { accountRateKey, isRequestCounterKey, linkRateKey } from '../../shared/rate-limits/keys';

const saved = { ...process.env };

beforeEach(() => {
  process.env.TABLE_NAME = 'unit';
  delete process.env.ACCOUNT_RATE_LIMIT;
  delete process.env.PUBLIC_RATE_LIMIT;
  resetConfig();
});

afterAll(() => {
  process.env = saved;
  resetConfig();
});

test('the limits default to 50 per second per account and 30 per minute per link', () => {
  expect(config()).toMatchObject({ accountRateLimit: 50, publicRateLimit: 30 });
});

test('ACCOUNT_RATE_LIMIT and PUBLIC_RATE_LIMIT set them', () => {
  process.env.ACCOUNT_RATE_LIMIT = '7';
  process.env.PUBLIC_RATE_LIMIT = '3';
  expect(config()).toMatchObject({ accountRateLimit: 7, publicRateLimit: 3 });
});

test('ACCOUNT_RATE_LIMIT=off turns the per-account limit off', () => {
  process.env.ACCOUNT_RATE_LIMIT = 'off';
  expect(config().accountRateLimit).toBeUndefined();
});

test.each(['0', '-1', '2.5', 'many', 'OFF'])('ACCOUNT_RATE_LIMIT=%s is refused by name', (value) => {
  process.env.ACCOUNT_RATE_LIMIT = value;
  expect(() => config()).toThrow(`ACCOUNT_RATE_LIMIT must be a positive integer, got '${value}'`);
});

test('counter keys are told apart from every other key of the account', () => {
  expect(isRequestCounterKey(accountRateKey(12, 1_900_000_000))).toBe(true);
  expect(isRequestCounterKey(linkRateKey(12, 'abc', 'open', 1_900_000_000))).toBe(true);
  expect(isRequestCounterKey({ pk: 'A#12#contact-type', sk: '000000000001' })).toBe(false);
  expect(isRequestCounterKey({ pk: 'A#12#rate#5', sk: 'LEDGER' })).toBe(false);
  expect(isRequestCounterKey(undefined)).toBe(false);
});
