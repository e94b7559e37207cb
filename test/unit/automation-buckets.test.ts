// The automation engine's time arithmetic: waiting periods, hour buckets, what a run drains.
import { bucketsBetween, bucketsToDrain, drainedThrough, dueAfter, firstRunLookbackHours, hourBucket, indexTime, shardOf, waitingMs } from '../../shared/automations/buckets';

const at = (iso: string) => new Date(iso);

describe('automation buckets', () => {
  it('turns waiting periods into milliseconds: instantly waits nothing', () => {
    expect(waitingMs({ waiting_type: 'instantly', waiting_period: 5 })).toBe(0);
    expect(waitingMs({ waiting_type: 'hours', waiting_period: 1 })).toBe(3_600_000);
    expect(waitingMs({ waiting_type: 'days', waiting_period: 2 })).toBe(172_800_000);
    expect(dueAfter(at('2026-01-01T10:30:00.000Z'), { waiting_type: 'days', waiting_period: 2 })).toEqual(at('2026-01-03T10:30:00.000Z'));
  });

  it('names UTC hour buckets and lists the hours between two buckets', () => {
    expect(hourBucket(at('2026-01-01T23:59:59.999Z'))).toBe('2026-01-01T23');
    expect(bucketsBetween('2026-01-01T22', '2026-01-02T01')).toEqual(['2026-01-01T22', '2026-01-01T23', '2026-01-02T00', '2026-01-02T01']);
  });

  it('drains from the hour after the last drained one, always re-reading the previous hour', () => {
    const now = at('2026-01-02T10:15:00.000Z');
    expect(bucketsToDrain(now, '2026-01-02T05')).toEqual(['2026-01-02T06', '2026-01-02T07', '2026-01-02T08', '2026-01-02T09', '2026-01-02T10']);
    expect(bucketsToDrain(now, '2026-01-02T09')).toEqual(['2026-01-02T09', '2026-01-02T10']);
    expect(drainedThrough(now)).toBe('2026-01-02T08');
  });

  it('looks back a week on a first run, and when the remembered hour lies ahead of the clock', () => {
    const now = at('2026-01-10T00:00:00.000Z');
    expect(bucketsToDrain(now, undefined)).toHaveLength(firstRunLookbackHours + 1);
    expect(bucketsToDrain(now, '2026-01-11T00')[0]).toBe('2026-01-03T00');
  });

  it('never indexes an enrolment before now, and spreads contacts over shards', () => {
    const now = at('2026-01-02T10:00:00.000Z');
    expect(indexTime(at('2026-01-01T00:00:00.000Z'), now)).toEqual(now);
    expect(indexTime(at('2026-01-03T00:00:00.000Z'), now)).toEqual(at('2026-01-03T00:00:00.000Z'));
    expect(new Set([1, 2, 3, 4, 5, 6, 7, 8].map(shardOf)).size).toBe(8);
  });
});
