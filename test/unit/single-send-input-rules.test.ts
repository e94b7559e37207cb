// The pure single-send input rules: audience entries, the UTC schedule and the design either-or rule.
import {
  maxRecipientEntries,
  parseRecipientEntries,
  parseRecipientEntry,
  parseScheduleDate,
  parseScheduleTime,
  resolveDesign,
  resolveSchedule,
} from '../../functions/single-sends/input-rules';

describe('parseRecipientEntry', () => {
  it.each([
    ['contacts_3', { id: '3', table: 'contacts_' }],
    ['segments_12', { id: '12', table: 'segments_' }],
    [' contacts_7 ', { id: '7', table: 'contacts_' }],
  ])('reads %j', (text, entry) => {
    expect(parseRecipientEntry(text)).toEqual(entry);
  });

  it.each(['contacts_', 'contacts_0', 'contacts_03', 'lists_1', 'contacts-1', 'CONTACTS_1', 'contacts_1x', 3, null])('refuses %j', (value) => {
    expect(parseRecipientEntry(value)).toBeUndefined();
  });
});

describe('parseRecipientEntries', () => {
  it('keeps each entry once, in the order first given', () => {
    expect(parseRecipientEntries(['segments_2', 'contacts_1', 'segments_2'], 'recipient_id', true)).toEqual({
      entries: [
        { id: '2', table: 'segments_' },
        { id: '1', table: 'contacts_' },
      ],
      errors: {},
    });
  });

  it('names each malformed entry by its index and keeps the good ones', () => {
    expect(parseRecipientEntries(['contacts_1', 'x', 'segments_'], 'recipient_id', true)).toEqual({
      entries: [{ id: '1', table: 'contacts_' }],
      errors: { 'recipient_id.1': ['The selected recipient id.1 is invalid.'], 'recipient_id.2': ['The selected recipient id.2 is invalid.'] },
    });
  });

  it.each([undefined, null, '', []])('treats %j as missing: required, or an empty list when optional', (value) => {
    expect(parseRecipientEntries(value, 'recipient_id', true).errors).toEqual({ recipient_id: ['The recipient id field is required.'] });
    expect(parseRecipientEntries(value, 'exclude_specific_recipient_id', false)).toEqual({ entries: [], errors: {} });
  });

  it('needs an array, of limited length', () => {
    expect(parseRecipientEntries('contacts_1', 'recipient_id', true).errors).toEqual({ recipient_id: ['The recipient id field must be an array.'] });
    const many = Array.from({ length: maxRecipientEntries + 1 }, (_, i) => `contacts_${i + 1}`);
    expect(parseRecipientEntries(many, 'recipient_id', true).errors).toEqual({
      recipient_id: [`The recipient id field must not have more than ${maxRecipientEntries} items.`],
    });
  });
});

describe('schedule date and time', () => {
  it.each([['2030-01-31', '2030-01-31'], ['2028-02-29', '2028-02-29'], ['2030-02-29', undefined], ['2030-1-31', undefined], ['0000-00-00', undefined], ['30-01-31', undefined]])(
    'date %s -> %s',
    (text, expected) => {
      expect(parseScheduleDate(text)).toBe(expected);
    },
  );

  it.each([['09:30', '09:30:00'], ['23:59:59', '23:59:59'], ['00:00', '00:00:00'], ['24:00', undefined], ['9:30', undefined], ['09:60', undefined], ['09:30 PM', undefined]])(
    'time %s -> %s',
    (text, expected) => {
      expect(parseScheduleTime(text)).toBe(expected);
    },
  );
});

describe('resolveSchedule', () => {
  const now = new Date('2030-06-01T12:00:00Z');

  it('sends an immediate send now with the zero date and time, whatever was given', () => {
    expect(resolveSchedule({ schedule_type: 0, schedule_date: 'junk', schedule_time: undefined }, now)).toEqual({
      ok: true,
      schedule_date: '0000-00-00',
      schedule_time: '00:00:00',
      dispatchAt: now,
    });
  });

  it('reads a scheduled date and time as UTC', () => {
    expect(resolveSchedule({ schedule_type: 1, schedule_date: '2030-06-01', schedule_time: '12:00:01' }, now)).toEqual({
      ok: true,
      schedule_date: '2030-06-01',
      schedule_time: '12:00:01',
      dispatchAt: new Date('2030-06-01T12:00:01Z'),
    });
  });

  it('refuses a moment that is not after now', () => {
    expect(resolveSchedule({ schedule_type: 1, schedule_date: '2030-06-01', schedule_time: '12:00' }, now)).toEqual({
      ok: false,
      errors: { schedule_date: ['The schedule date field must be a date after now.'] },
    });
  });

  it('names both missing fields of a scheduled send', () => {
    expect(resolveSchedule({ schedule_type: 1, schedule_date: undefined, schedule_time: undefined }, now)).toEqual({
      ok: false,
      errors: {
        schedule_date: ['The schedule date field is required when schedule type is 1.'],
        schedule_time: ['The schedule time field is required when schedule type is 1.'],
      },
    });
  });
});

describe('resolveDesign', () => {
  it('keeps the one design given and stores the other empty; neither means the library design', () => {
    expect(resolveDesign(undefined, '<p>x</p>')).toEqual({ ok: true, template_json: '', template_html: '<p>x</p>' });
    expect(resolveDesign('{}', undefined)).toEqual({ ok: true, template_json: '{}', template_html: '' });
    expect(resolveDesign(undefined, undefined)).toEqual({ ok: true, template_json: null, template_html: null });
  });

  it('refuses both', () => {
    expect(resolveDesign('{}', '<p>x</p>')).toEqual({
      ok: false,
      errors: { template_html: ['The template html field prohibits template json from being present.'] },
    });
  });
});
