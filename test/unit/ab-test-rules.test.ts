// The pure rules of an A/B subject test: the test share's size or why there is none, the subjects'
// turns, and the winner on people's rates per recipient mailed, ties to the lower index.
import { abPlan, abVariantOf, abWinner, type AbVariantCounts } from '../../shared/single-sends/ab-test';

const variant = (recipients: number, unique_opens: number, unique_clicks = 0): AbVariantCounts => ({ recipients, unique_opens, unique_clicks });

describe('abPlan', () => {
  test.each([
    [200, 20, 2, { kind: 'test', testSize: 40, perSubject: 20 }],
    [100, 20, 2, { kind: 'test', testSize: 20, perSubject: 10 }],
    // 20% of 209 is 41.8: 41 rounded down to equal parts of 20.
    [209, 20, 2, { kind: 'test', testSize: 40, perSubject: 20 }],
    [1000, 50, 5, { kind: 'test', testSize: 500, perSubject: 100 }],
    [1000, 10, 3, { kind: 'test', testSize: 99, perSubject: 33 }],
  ])('%i recipients, %i%%, %i subjects', (audience, percent, subjects, plan) => {
    expect(abPlan(audience, { percent, subjects: Array.from({ length: subjects }, (_, i) => `S${i}`) })).toEqual(plan);
  });

  test('an audience too small for 10 per subject is skipped, saying how large it would have to be', () => {
    expect(abPlan(99, { percent: 20, subjects: ['A', 'B'] })).toEqual({
      kind: 'skip',
      reason:
        'The audience of 99 recipients is too small for a test of 2 subjects: 20% of it gives 9 recipients per subject, and a test needs at least 10 per subject (an audience of 100 or more). Everyone was sent the first subject.',
    });
    expect(abPlan(0, { percent: 10, subjects: ['A', 'B', 'C'] })).toMatchObject({ kind: 'skip', reason: expect.stringContaining('(an audience of 300 or more)') });
  });
});

test('the subjects take turns', () => {
  expect(Array.from({ length: 7 }, (_, i) => abVariantOf(i, 3))).toEqual([0, 1, 2, 0, 1, 2, 0]);
});

describe('abWinner', () => {
  test('the highest share of people per recipient mailed, not the most people', () => {
    expect(abWinner([variant(20, 4), variant(20, 8)], 'opens')).toBe(1);
    expect(abWinner([variant(10, 5), variant(30, 9)], 'opens')).toBe(0);
    expect(abWinner([variant(10, 5, 0), variant(10, 1, 1)], 'clicks')).toBe(1);
  });

  test('ties go to the lower index, exact fractions compared', () => {
    expect(abWinner([variant(20, 2), variant(20, 2), variant(20, 2)], 'opens')).toBe(0);
    expect(abWinner([variant(3, 1), variant(30, 10), variant(9, 3)], 'opens')).toBe(0);
    expect(abWinner([variant(20, 0), variant(20, 0)], 'clicks')).toBe(0);
  });

  test('a subject mailed to nobody has a rate of 0', () => {
    expect(abWinner([variant(0, 0), variant(20, 1)], 'opens')).toBe(1);
    expect(abWinner([variant(0, 0), variant(20, 0)], 'opens')).toBe(0);
    expect(abWinner([variant(20, 1), variant(0, 0)], 'opens')).toBe(0);
  });
});
