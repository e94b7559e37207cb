// The reserved contact fields: the spec's definitions and the case-insensitive name check.
import { isReservedFieldName, reservedFieldNames, reservedFields } from '../../shared/custom-fields/reserved-fields';

describe('reserved fields', () => {
  it('lists the eleven contact columns with ids 1..11, in the spec field order', () => {
    expect(reservedFields.map((field) => field.field_name)).toEqual([
      'first_name',
      'last_name',
      'email',
      'alt_email',
      'country',
      'state',
      'city',
      'address_line1',
      'address_line2',
      'state_province_region',
      'postal_code',
    ]);
    expect(reservedFields.map((field) => field.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(reservedFields[0]).toEqual({
      id: 1,
      user_id: null,
      field_name: 'first_name',
      field_type: 'text',
      is_reserved: 1,
      created_at: null,
      updated_at: null,
    });
    expect(Object.keys(reservedFields[10] as object)).toEqual(['id', 'user_id', 'field_name', 'field_type', 'is_reserved', 'created_at', 'updated_at']);
  });

  it('marks every definition reserved, account-less and text', () => {
    for (const field of reservedFields) expect(field).toMatchObject({ user_id: null, is_reserved: 1, field_type: 'text' });
    expect(reservedFieldNames).toHaveLength(reservedFields.length);
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(reservedFields)).toBe(true);
    expect(Object.isFrozen(reservedFields[0])).toBe(true);
  });

  it.each(['first_name', 'EMAIL', 'Postal_Code', ' city '])('treats %j as reserved', (name) => {
    expect(isReservedFieldName(name)).toBe(true);
  });

  it.each(['firstname', 'email2', 'full_name', 'sender_name', 'country_id', ''])('treats %j as free', (name) => {
    expect(isReservedFieldName(name)).toBe(false);
  });
});
