// Contact items: custom values tied to field ids, merging on write, and the full name.
import { contactAfterWrite, contactItem, fieldsByName, fullName, toContactRecord, type ContactFields } from '../../shared/contacts/items';
import type { CustomField } from '../../shared/custom-fields/repository';

const now = '2026-01-01T00:00:00.000000Z';

function field(id: number, field_name: string, field_type: CustomField['field_type'] = 'text'): CustomField {
  return { id, user_id: 7, field_name, field_type, is_reserved: 0, created_at: now, updated_at: now };
}

const input: ContactFields = {
  contact_type_id: 3,
  first_name: 'Ada',
  last_name: '',
  email: 'ada@example.com',
  alt_email: null,
  country: '233',
  state: '',
  city: '',
  address_line1: '',
  address_line2: '',
  state_province_region: '',
  postal_code: '',
};

describe('contact items', () => {
  it('stores each custom value with its field id and reads it back by name', () => {
    const fields = fieldsByName([field(1, 'age', 'number'), field(2, 'plan')]);
    const record = contactAfterWrite(7, 10, input, { age: '42', plan: null }, fields, now);
    const item = contactItem(record, fields);
    expect(item).toMatchObject({ pk: 'A#7#contact#10', sk: '000000000010', gsi1pk: 'A#7#contact-type#3#contact#10', gsi1sk: '000000000010', custom_field_ids: { age: 1, plan: 2 } });
    expect(toContactRecord(item, fields).custom_field).toEqual({ age: { field_name: 'age', field_value: '42' }, plan: { field_name: 'plan', field_value: null } });
  });

  it('hides values of a deleted field, and of a new field that reuses the name', () => {
    const before = fieldsByName([field(1, 'age'), field(2, 'plan')]);
    const item = contactItem(contactAfterWrite(7, 10, input, { age: '42', plan: 'gold' }, before, now), before);
    expect(toContactRecord(item, fieldsByName([field(2, 'plan')])).custom_field).toEqual({ plan: { field_name: 'plan', field_value: 'gold' } });
    expect(toContactRecord(item, fieldsByName([field(5, 'age'), field(6, 'plan')])).custom_field).toBeNull();
  });

  it('keeps earlier values not given on write, and drops those of deleted fields', () => {
    const fields = fieldsByName([field(1, 'age'), field(2, 'plan')]);
    const first = contactAfterWrite(7, 10, input, { age: '1', plan: 'gold' }, fields, '2025-01-01T00:00:00.000000Z');
    const remaining = fieldsByName([field(2, 'plan'), field(3, 'score')]);
    const before = toContactRecord(contactItem(first, fields), remaining);
    const after = contactAfterWrite(7, 10, { ...input, first_name: 'Augusta' }, { score: '9' }, remaining, now, before);
    expect(after.custom_field).toEqual({ plan: { field_name: 'plan', field_value: 'gold' }, score: { field_name: 'score', field_value: '9' } });
    expect(after).toMatchObject({ first_name: 'Augusta', created_at: '2025-01-01T00:00:00.000000Z', updated_at: now });
    expect(contactItem(after, remaining).custom_field_ids).toEqual({ plan: 2, score: 3 });
  });

  it('answers null custom values when a contact has none', () => {
    expect(contactAfterWrite(7, 1, input, {}, new Map(), now).custom_field).toBeNull();
  });

  it('joins first and last name, trimmed', () => {
    expect(fullName({ first_name: 'Ada', last_name: 'Lovelace' })).toBe('Ada Lovelace');
    expect(fullName({ first_name: '', last_name: 'Lovelace' })).toBe('Lovelace');
    expect(fullName({ first_name: '', last_name: '' })).toBe('');
  });
});
