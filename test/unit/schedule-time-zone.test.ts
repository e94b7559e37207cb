// A scheduled send's local date and time in an IANA time zone, read as the one instant it names:
// plain offsets, both sides of daylight saving time, the hour skipped in spring (it does not exist)
// and the hour repeated in autumn (the earlier instance), and which names count as time zones.
import { timeZoneName, zonedMoment } from '../../functions/single-sends/time-zone';

describe('zonedMoment', () => {
  it.each([
    ['2030-01-15', '10:00:00', 'Europe/Berlin', '2030-01-15T09:00:00.000Z'],
    ['2030-07-01', '10:00:00', 'Europe/Berlin', '2030-07-01T08:00:00.000Z'],
    ['2030-07-01', '10:00:00', 'America/New_York', '2030-07-01T14:00:00.000Z'],
    ['2030-12-31', '23:30:15', 'America/New_York', '2031-01-01T04:30:15.000Z'],
    ['2030-06-01', '09:00:00', 'Asia/Kolkata', '2030-06-01T03:30:00.000Z'],
    ['2030-06-01', '00:15:00', 'Asia/Tokyo', '2030-05-31T15:15:00.000Z'],
    ['2030-06-01', '10:00:00', 'Etc/GMT+5', '2030-06-01T15:00:00.000Z'],
    ['2030-06-01', '10:00:00', 'UTC', '2030-06-01T10:00:00.000Z'],
    // Just before and after the spring change in Berlin (02:00 CET -> 03:00 CEST on 31 March 2030).
    ['2030-03-31', '01:59:59', 'Europe/Berlin', '2030-03-31T00:59:59.000Z'],
    ['2030-03-31', '03:00:00', 'Europe/Berlin', '2030-03-31T01:00:00.000Z'],
  ])('%s %s in %s is %s', (date, time, zone, instant) => {
    expect(zonedMoment(date, time, zone)?.toISOString()).toBe(instant);
  });

  it.each([
    ['2030-03-31', '02:00:00', 'Europe/Berlin'],
    ['2030-03-31', '02:30:00', 'Europe/Berlin'],
    ['2030-03-10', '02:30:00', 'America/New_York'],
  ])('answers nothing for %s %s in %s: the clocks skip it', (date, time, zone) => {
    expect(zonedMoment(date, time, zone)).toBeUndefined();
  });

  it.each([
    // Berlin, 27 October 2030: 03:00 CEST -> 02:00 CET, so 02:30 happens at 00:30Z and again at 01:30Z.
    ['2030-10-27', '02:30:00', 'Europe/Berlin', '2030-10-27T00:30:00.000Z'],
    // New York, 3 November 2030: 02:00 EDT -> 01:00 EST, so 01:30 happens at 05:30Z and again at 06:30Z.
    ['2030-11-03', '01:30:00', 'America/New_York', '2030-11-03T05:30:00.000Z'],
  ])('takes the earlier of the two instances of %s %s in %s', (date, time, zone, instant) => {
    expect(zonedMoment(date, time, zone)?.toISOString()).toBe(instant);
  });
});

describe('timeZoneName', () => {
  it.each([
    ['Europe/Berlin', 'Europe/Berlin'],
    ['America/Argentina/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['UTC', 'UTC'],
    ['Etc/GMT-14', 'Etc/GMT-14'],
    // Spelled in another case: the zone's own spelling is kept.
    ['europe/berlin', 'Europe/Berlin'],
  ])('accepts %j as %j', (text, name) => {
    expect(timeZoneName(text)).toBe(name);
  });

  it.each(['Mars/Olympus', 'Europe/Berlinn', 'CET', 'EST', 'GMT', '+01:00', 'UTC+1', 'Europe/', '/Berlin', 'Europe//Berlin', 'Europe/Berlin ', ''])(
    'refuses %j',
    (text) => {
      expect(timeZoneName(text)).toBeUndefined();
    },
  );
});
