// The segment rule engine: every operator on text, number and datetime-local values, ranges and blanks.
import type { ContactRecord } from '../../shared/contacts/record';
import {
  compareValues,
  contactFieldValue,
  contactMatches,
  parseDateTime,
  rangeBounds,
  valueMatches,
  type Condition,
  type FieldType,
  type SegmentOperator,
} from '../../shared/segments/rules';

function condition(operator: SegmentOperator, value = '', fieldType: FieldType = 'text'): Condition {
  return { field: 'any', fieldType, operator, value };
}

const contact: ContactRecord = {
  id: 7,
  user_id: 1,
  contact_type_id: 2,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  alt_email: null,
  country: '826',
  state: '',
  city: 'London',
  address_line1: '',
  address_line2: '',
  state_province_region: '',
  postal_code: 'W1',
  custom_field: { age: { field_name: 'age', field_value: '36' }, nickname: { field_name: 'nickname', field_value: null } },
  subscription_status: 'confirmed',
  confirmed_at: null,
  deleted_at: null,
  created_at: '2024-01-01T00:00:00.000000Z',
  updated_at: '2024-01-01T00:00:00.000000Z',
};

describe('text operators (case-insensitive)', () => {
  it.each<[SegmentOperator, string, string | null, boolean]>([
    ['is', 'LONDON', 'London', true],
    ['is', 'London', 'Londonderry', false],
    ['is', ' london ', 'London', true],
    ['is not', 'paris', 'London', true],
    ['is not', 'london', 'London', false],
    ['is not', 'london', null, true],
    ['contains', 'OND', 'London', true],
    ['contains', 'x', 'London', false],
    ['contains', 'a', null, false],
    ['does not contain', 'x', 'London', true],
    ['does not contain', 'don', 'London', false],
    ['does not contain', 'x', '', true],
    ['starts with', 'lon', 'London', true],
    ['starts with', 'don', 'London', false],
    ['ends with', 'DON', 'London', true],
    ['ends with', 'lon', 'London', false],
    ['greater than', 'b', 'Apple', false],
    ['greater than', 'apple', 'Banana', true],
    ['less than', 'banana', 'apple', true],
    ['less than', 'a', '', false],
    ['between', 'b,d', 'Cherry', true],
    ['between', 'd,b', 'cherry', true],
    ['between', 'b,d', 'echo', false],
  ])('%s %j against %j is %s', (operator, value, actual, expected) => {
    expect(valueMatches(condition(operator, value), actual)).toBe(expected);
  });
});

describe('is empty / is not empty', () => {
  it.each<[string | null, boolean]>([
    [null, true],
    ['', true],
    ['   ', true],
    ['x', false],
  ])('%j is empty: %s', (actual, empty) => {
    expect(valueMatches(condition('is empty'), actual)).toBe(empty);
    expect(valueMatches(condition('is not empty'), actual)).toBe(!empty);
  });
});

describe('number fields compare numerically', () => {
  it.each<[SegmentOperator, string, string | null, boolean]>([
    ['greater than', '9', '10', true],
    ['greater than', '10', '9', false],
    ['less than', '10', '9.5', true],
    ['is', '5', '5.0', true],
    ['is', '5', '6', false],
    ['is not', '5', '5.00', false],
    ['is not', '5', 'abc', true],
    ['greater than', '1', 'abc', false],
    ['between', '18,30', '18', true],
    ['between', '18,30', '30', true],
    ['between', '18,30', '31', false],
    ['between', '30,18', '25', true],
    ['between', '-5,5', '-1e0', true],
    ['contains', '0', '100', true],
  ])('%s %j against %j is %s', (operator, value, actual, expected) => {
    expect(valueMatches(condition(operator, value, 'number'), actual)).toBe(expected);
  });
});

describe('datetime-local fields compare chronologically', () => {
  it.each<[SegmentOperator, string, string | null, boolean]>([
    ['greater than', '2024-01-01T10:00', '2024-01-01T10:01', true],
    ['less than', '2024-01-01', '2023-12-31T23:59', true],
    ['is', '2024-03-01', '2024-03-01T00:00', true],
    ['is', '2024-03-01T00:00', '2024-03-01 00:00:00', true],
    ['between', '2024-01-01,2024-12-31T23:59', '2024-06-15T08:30', true],
    ['between', '2024-01-01,2024-12-31T23:59', '2025-01-01T00:00', false],
    ['greater than', '2024-01-01', 'yesterday', false],
    // As text '9' > '10'; by date, September comes before October.
    ['less than', '2024-10-01', '2024-09-30', true],
  ])('%s %j against %j is %s', (operator, value, actual, expected) => {
    expect(valueMatches(condition(operator, value, 'datetime-local'), actual)).toBe(expected);
  });

  it('reads only real calendar times', () => {
    expect(parseDateTime('2024-02-29T12:30')).toBe(Date.UTC(2024, 1, 29, 12, 30));
    expect(parseDateTime('2023-02-29')).toBeUndefined();
    expect(parseDateTime('2024-01-01T24:00')).toBeUndefined();
    expect(parseDateTime('01/02/2024')).toBeUndefined();
  });
});

describe('helpers', () => {
  it('splits a range into exactly two bounds', () => {
    expect(rangeBounds(' 1 , 2 ')).toEqual(['1', '2']);
    expect(rangeBounds('1')).toBeUndefined();
    expect(rangeBounds('1,2,3')).toBeUndefined();
    expect(rangeBounds('1,')).toBeUndefined();
  });

  it('answers undefined when a value cannot be compared as its type', () => {
    expect(compareValues('number', 'x', '1')).toBeUndefined();
    expect(compareValues('text', 'B', 'a')).toBe(1);
  });

  it('reads reserved columns and custom values of a contact', () => {
    expect(contactFieldValue(contact, 'city')).toBe('London');
    expect(contactFieldValue(contact, 'alt_email')).toBeNull();
    expect(contactFieldValue(contact, 'age')).toBe('36');
    expect(contactFieldValue(contact, 'nickname')).toBeNull();
    expect(contactFieldValue(contact, 'deleted_field')).toBeNull();
    expect(contactFieldValue({ ...contact, custom_field: null }, 'age')).toBeNull();
  });
});

describe('contactMatches', () => {
  const city: Condition = { field: 'city', fieldType: 'text', operator: 'is', value: 'london' };
  const age: Condition = { field: 'age', fieldType: 'number', operator: 'greater than', value: '40' };

  it('ANDs the conditions', () => {
    expect(contactMatches([city], contact)).toBe(true);
    expect(contactMatches([city, age], contact)).toBe(false);
    expect(contactMatches([city, { ...age, operator: 'less than' }], contact)).toBe(true);
  });

  it('matches nobody without conditions', () => {
    expect(contactMatches([], contact)).toBe(false);
  });
});
