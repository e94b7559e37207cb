// Bounded concurrency and chunking.
import { chunked, inParallel } from '../../shared/table/concurrency';

describe('chunked', () => {
  it('groups items in order, the last group smaller', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 25)).toEqual([]);
  });
});

describe('inParallel', () => {
  it('works on every item once, never more than `limit` at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await inParallel(Array.from({ length: 20 }, (_, i) => i), 4, async (item) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resume) => setTimeout(resume, item % 3));
      seen.push(item);
      inFlight--;
    });
    expect(most).toBe(4);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('fails with the first failure', async () => {
    await expect(inParallel([1, 2, 3], 2, async (item) => {
      if (item === 2) throw new Error('two');
    })).rejects.toThrow('two');
  });
});
