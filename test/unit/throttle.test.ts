// The token bucket and backoff, on a simulated clock: the rate holds, bursts are bounded, a pause
// holds every taker back, a taker whose time is up gets no turn, and backoff doubles with jitter.
import { backoffDelay, tokenBucket, type Clock } from '../../shared/delivery/throttle';

/** A clock that only moves when someone sleeps, recording when each take was allowed to start. */
function simulatedClock(): Clock & { time: number } {
  const clock = {
    time: 1_000_000,
    now: () => clock.time,
    sleep: async (ms: number) => {
      clock.time += ms;
    },
  };
  return clock;
}

async function startTimes(count: number, take: () => Promise<void>, clock: { time: number }): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < count; i++) {
    await take();
    starts.push(clock.time);
  }
  return starts;
}

describe('token bucket', () => {
  test('never exceeds the rate: 50 takes at 10/s with no burst take 4.9 s', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(10, 1, clock);
    const begin = clock.time;
    const starts = await startTimes(50, () => bucket.take(), clock);
    expect(starts[0]).toBe(begin);
    expect(starts[49]! - begin).toBeCloseTo(4900, 5);
    // No one-second window holds more than 10 starts.
    for (const start of starts) expect(starts.filter((other) => other >= start && other < start + 1000).length).toBeLessThanOrEqual(10);
  });

  test('a full bucket lets `burst` go at once, then the rate applies', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(14, 14, clock);
    const begin = clock.time;
    const starts = await startTimes(28, () => bucket.take(), clock);
    expect(starts.slice(0, 14).every((start) => start === begin)).toBe(true);
    expect(starts[14]! - begin).toBeCloseTo(1000 / 14, 5);
    expect(starts[27]! - begin).toBeCloseTo((14 * 1000) / 14, 5);
  });

  test('tokens do not pile up beyond the burst during a quiet spell', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(5, 2, clock);
    clock.time += 60_000;
    const begin = clock.time;
    const starts = await startTimes(4, () => bucket.take(), clock);
    expect(starts.map((start) => start - begin)).toEqual([0, 0, 200, 400]);
  });

  test('a pause holds back the next taker until it ends', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(1000, 1, clock);
    await bucket.take();
    bucket.pause(750);
    const paused = clock.time;
    await bucket.take();
    expect(clock.time - paused).toBe(750);
  });

  test('a taker that starts late is charged from its real start, so the next is not bunched up', async () => {
    const clock = simulatedClock();
    let late = 0;
    const lateClock: Clock = { now: clock.now, sleep: async (ms) => void (clock.time += ms + late) };
    const bucket = tokenBucket(10, 1, lateClock);
    await bucket.take();
    late = 40;
    await bucket.take();
    const lateStart = clock.time;
    late = 0;
    await bucket.take();
    expect(clock.time - lateStart).toBe(100);
  });

  test('concurrent takers are served in turn at the rate', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(20, 1, clock);
    const begin = clock.time;
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 5 }, () => bucket.take().then(() => starts.push(clock.time - begin))));
    expect(starts).toEqual([0, 50, 100, 150, 200]);
  });

  test('a taker told to stop when its turn comes gets no turn and uses none', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(10, 1, clock);
    const begin = clock.time;
    expect(await bucket.acquire()).toBe(true);
    expect(await bucket.acquire(() => false)).toBe(false);
    expect(clock.time).toBe(begin);
    // The next taker has the turn the stopped one did not use.
    expect(await bucket.acquire()).toBe(true);
    expect(clock.time - begin).toBe(100);
  });

  test('a taker whose time runs out during the wait gets no turn, and the next goes as soon as the rate allows', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(10, 1, clock);
    const begin = clock.time;
    await bucket.acquire();
    expect(await bucket.acquire(() => clock.time === begin)).toBe(false);
    expect(clock.time - begin).toBe(100);
    expect(await bucket.acquire()).toBe(true);
    expect(clock.time - begin).toBe(100);
  });

  test('once time is up, the takers queued behind are answered at once', async () => {
    const clock = simulatedClock();
    const bucket = tokenBucket(20, 1, clock);
    const begin = clock.time;
    const keepGoing = () => clock.time - begin < 120;
    const answers = await Promise.all(Array.from({ length: 6 }, () => bucket.acquire(keepGoing)));
    expect(answers).toEqual([true, true, true, false, false, false]);
    // The fourth waited for its turn at 150 ms and found the time up there; the rest did not wait.
    expect(clock.time - begin).toBe(150);
  });

  test('a rate must be positive', () => {
    expect(() => tokenBucket(0)).toThrow('positive');
    expect(() => tokenBucket(1, 0)).toThrow('at least 1');
  });
});

describe('backoff', () => {
  test('doubles per attempt between half and all of the ceiling, capped', () => {
    expect(backoffDelay(1, 200, 5000, () => 0)).toBe(100);
    expect(backoffDelay(1, 200, 5000, () => 1)).toBe(200);
    expect(backoffDelay(3, 200, 5000, () => 1)).toBe(800);
    expect(backoffDelay(10, 200, 5000, () => 1)).toBe(5000);
    expect(backoffDelay(10, 200, 5000, () => 0)).toBe(2500);
  });
});
