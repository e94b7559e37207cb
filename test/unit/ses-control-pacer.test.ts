// The SES control-plane pacer on a simulated clock and an in-memory slot store standing in for the
// table: one call per slot of 1/rate seconds whatever the number of containers, a caller that finds
// no free slot within its wait gives up with ControlPlaneBusyError, and slots seen taken are not tried again.
import { ControlPlaneBusyError, controlPacer, type PacerClock, type SlotStore } from '../../shared/rate-limits/ses-control';

/** A clock that only moves when someone sleeps. */
function simulatedClock(start = 1_000_000): PacerClock & { time: number } {
  const clock = {
    time: start,
    now: () => clock.time,
    sleep: async (ms: number) => {
      clock.time += ms;
    },
  };
  return clock;
}

/** Slots as the table keeps them: each taken once; every attempt is recorded. */
function memorySlots(): SlotStore & { taken: Map<number, number>; attempts: number[] } {
  const taken = new Map<number, number>();
  const attempts: number[] = [];
  let taker = 0;
  return {
    taken,
    attempts,
    async take(slot) {
      attempts.push(slot);
      if (taken.has(slot)) return false;
      taken.set(slot, ++taker);
      return true;
    },
  };
}

describe('SES control-plane pacer', () => {
  test('at 1 a second, five calls start one second apart, the first at once', async () => {
    const clock = simulatedClock();
    const pacer = controlPacer({ ratePerSecond: 1, clock, store: memorySlots() });
    const starts: number[] = [];
    for (let call = 0; call < 5; call++) {
      await pacer.take();
      starts.push(clock.time);
    }
    expect(starts).toEqual([1_000_000, 1_001_000, 1_002_000, 1_003_000, 1_004_000]);
  });

  test('two containers sharing the slots never take one slot twice, and never call twice in a second', async () => {
    const clock = simulatedClock();
    const store = memorySlots();
    const containers = [controlPacer({ ratePerSecond: 1, clock, store }), controlPacer({ ratePerSecond: 1, clock, store })];
    const starts: number[] = [];
    // Alternating, as two functions calling SES in turns; each call sees the other's slots in the table.
    for (let call = 0; call < 6; call++) {
      await (containers[call % 2] as (typeof containers)[number]).take(10_000);
      starts.push(clock.time);
    }
    expect(starts).toEqual([1_000_000, 1_001_000, 1_002_000, 1_003_000, 1_004_000, 1_005_000]);
    expect([...store.taken.keys()]).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
  });

  test('callers at the same moment each get a slot of their own', async () => {
    const clock = simulatedClock();
    const store = memorySlots();
    const containers = Array.from({ length: 3 }, () => controlPacer({ ratePerSecond: 1, clock, store }));
    await Promise.all(containers.flatMap((pacer) => [pacer.take(10_000), pacer.take(10_000)]));
    expect([...store.taken.keys()].sort((a, b) => a - b)).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
  });

  test('half a call a second (two stages sharing an account): slots of two seconds', async () => {
    const clock = simulatedClock();
    const pacer = controlPacer({ ratePerSecond: 0.5, clock, store: memorySlots() });
    const starts: number[] = [];
    for (let call = 0; call < 3; call++) {
      await pacer.take(10_000);
      starts.push(clock.time);
    }
    expect(starts).toEqual([1_000_000, 1_002_000, 1_004_000]);
  });

  test('no free slot within the wait: busy, without sleeping, after trying only the slots in the wait', async () => {
    const clock = simulatedClock();
    const store = memorySlots();
    for (let slot = 1000; slot <= 1010; slot++) store.taken.set(slot, 0);
    const pacer = controlPacer({ ratePerSecond: 1, clock, store, maxWaitMs: 3_000 });
    await expect(pacer.take()).rejects.toEqual(new ControlPlaneBusyError(3_000));
    expect(store.attempts).toEqual([1000, 1001, 1002, 1003]);
    expect(clock.time).toBe(1_000_000);
    // Slots seen taken are not tried again by this container.
    store.attempts.length = 0;
    await expect(pacer.take()).rejects.toBeInstanceOf(ControlPlaneBusyError);
    expect(store.attempts).toEqual([]);
    clock.time += 10_500;
    await pacer.take();
    expect(store.attempts).toEqual([1010, 1011]);
    expect(clock.time).toBe(1_011_000);
  });

  test('a zero or negative rate is refused', () => {
    expect(() => controlPacer({ ratePerSecond: 0, clock: simulatedClock(), store: memorySlots() })).toThrow('A control-plane rate must be positive, got 0');
  });
});
