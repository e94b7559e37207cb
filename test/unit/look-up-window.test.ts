// How many recipients a delivery run looks up at a time: one per worker first, then about half a
// second of mails at the run's pace, which in a run's first second is at least the pace of the
// container's latest run (its own count then says little: its workers all start at once).
import { lookUpWindowSize, recordRunPace, resetContainerPace, runPace } from '../../shared/delivery/look-up-window';

beforeEach(() => resetContainerPace());

describe('a run\'s pace', () => {
  test('in a fresh container: its own count, over at least a second', () => {
    expect(runPace(0, 0)).toBe(0);
    expect(runPace(16, 40)).toBe(16);
    expect(runPace(100, 500)).toBe(100);
    expect(runPace(300, 1_500)).toBe(200);
  });

  test('in its first second: at least the pace of the container\'s latest run', () => {
    recordRunPace(200, 500);
    expect(runPace(0, 0)).toBe(400);
    expect(runPace(16, 40)).toBe(400);
    expect(runPace(500, 900)).toBe(500);
  });

  test('after its first second: its own pace alone, however fast the latest run was', () => {
    recordRunPace(400, 1_000);
    expect(runPace(50, 1_000)).toBe(50);
    expect(runPace(30, 2_000)).toBe(15);
  });

  test('a short run is counted over half a second at least (its workers all started at once)', () => {
    recordRunPace(12, 30);
    expect(runPace(0, 0)).toBe(24);
  });

  test('a run that handed nobody out leaves the pace as it was', () => {
    recordRunPace(100, 1_000);
    recordRunPace(0, 5_000);
    expect(runPace(0, 0)).toBe(100);
  });

  test('forgotten with the rate limiter', () => {
    recordRunPace(100, 1_000);
    resetContainerPace();
    expect(runPace(0, 0)).toBe(0);
  });
});

describe('the window size', () => {
  test('the first window is one recipient per worker, whatever the pace', () => {
    expect(lookUpWindowSize(16, true, 0)).toBe(16);
    expect(lookUpWindowSize(16, true, 1_000)).toBe(16);
  });

  test('then half a second at the pace, and never fewer than the workers', () => {
    expect(lookUpWindowSize(16, false, 400)).toBe(200);
    expect(lookUpWindowSize(16, false, 45)).toBe(23);
    expect(lookUpWindowSize(16, false, 14)).toBe(16);
    expect(lookUpWindowSize(4, false, 5)).toBe(4);
  });

  test('a message of 100 at 400 mails a second in a container that kept that pace: two look-ups, not six', () => {
    recordRunPace(400, 1_000);
    const windows: number[] = [];
    let left = 100;
    let handedOut = 0;
    // The next window is read as the first one's recipients are handed out, within the run's first second.
    while (left > 0) {
      const size = Math.min(left, lookUpWindowSize(16, windows.length === 0, runPace(handedOut, 50 * windows.length)));
      windows.push(size);
      left -= size;
      handedOut += size;
    }
    expect(windows).toEqual([16, 84]);
  });
});
