// The one "is there time left" check of the long-running consumers.
import { fitsInTime, remainingOf, timeLeft } from '../../shared/time-left';

describe('time left', () => {
  let now = 0;
  let remaining = 0;
  const clock = () => remaining;

  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  test('without a clock there is always time', () => {
    expect(timeLeft(undefined, { reserveMs: 10_000, longestStepTimes: 3 })()).toBe(true);
    expect(fitsInTime(remainingOf(undefined), 10_000)(1_000_000)).toBe(true);
  });

  test('the reserve alone decides when steps are not counted', () => {
    const check = timeLeft(clock, { reserveMs: 10_000 });
    remaining = 10_001;
    expect(check()).toBe(true);
    remaining = 10_000;
    expect(check()).toBe(false);
  });

  test('the longest step so far, times over, is kept in hand besides the reserve', () => {
    const check = timeLeft(clock, { reserveMs: 1_000, longestStepTimes: 2 });
    remaining = 60_000;
    now += 5_000; // a 5 s step: 1 s + 2 x 5 s must fit
    expect(check()).toBe(true);
    now += 1_000; // a shorter step does not lower what is kept
    remaining = 11_000;
    expect(check()).toBe(false);
    remaining = 11_001;
    expect(check()).toBe(true);
  });

  test('fitsInTime weighs a given length against what is left', () => {
    remaining = 5_000;
    const fits = fitsInTime(clock, 1_000);
    expect([fits(3_999), fits(4_000)]).toEqual([true, false]);
  });

  test('remainingOf reads the Lambda context', () => {
    const context = { getRemainingTimeInMillis: () => 42 };
    expect(remainingOf(context)?.()).toBe(42);
  });
});
