// Custom values checked by their field's type, as contact add, update and CSV rows read them.
import { readCustomValues } from '../../shared/contacts/input';
import { fieldsByName } from '../../shared/contacts/items';
import type { CustomField } from '../../shared/custom-fields/repository';

const fields = fieldsByName(
  (['number', 'datetime-local', 'text'] as const).map((field_type, index): CustomField => ({
    id: index + 1,
    user_id: 1,
    field_name: field_type === 'datetime-local' ? 'seen' : field_type === 'number' ? 'score' : 'bio',
    field_type,
    is_reserved: 0,
    created_at: '',
    updated_at: '',
  })),
);

describe('readCustomValues', () => {
  it.each([
    ['score', '12', '12'],
    ['score', ' -3.5 ', '-3.5'],
    ['score', 7, '7'],
    ['seen', '2024-02-29T23:59', '2024-02-29T23:59'],
    ['seen', '2024-02-29T23:59:30', '2024-02-29T23:59:30'],
    ['bio', 'x'.repeat(1000), 'x'.repeat(1000)],
    ['bio', '', null],
    ['score', null, null],
  ])('accepts %s = %j as %j', (name, value, stored) => {
    expect(readCustomValues({ [name]: value }, fields)).toEqual({ values: { [name]: stored }, errors: {} });
  });

  it.each([
    ['score', '1,5', 'The score field must be a number.'],
    ['score', true, 'The score field must be a string.'],
    ['seen', '2024-02-29', 'The seen field must match the format Y-m-d\\TH:i.'],
    ['seen', '2024-02-29T24:00', 'The seen field must match the format Y-m-d\\TH:i.'],
    ['bio', 'x'.repeat(1001), 'The bio field must not be greater than 1000 characters.'],
    ['bio', 5, 'The bio field must be a string.'],
    ['nickname', 'x', 'The custom field nickname does not exist.'],
  ])('refuses %s = %j', (name, value, message) => {
    expect(readCustomValues({ [name]: value }, fields)).toEqual({ values: {}, errors: { [`custom_field.${name}`]: [message] } });
  });
});
