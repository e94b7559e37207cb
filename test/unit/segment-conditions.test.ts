// Reading segment conditions from save/update input: alignment, field names, operators and typed values.
import { maxConditions, parseConditions } from '../../shared/segments/conditions';
import type { FieldType } from '../../shared/segments/rules';

const fields = new Map<string, FieldType>([
  ['city', 'text'],
  ['age', 'number'],
  ['joined', 'datetime-local'],
]);

describe('parseConditions', () => {
  it('zips the three arrays into conditions with the field types', () => {
    const result = parseConditions(
      { select_field: ['city', 'AGE', 'joined'], select_operator: ['Starts  With', 'between', 'is not empty'], value: ['Lon', ['18', '30']] },
      fields,
    );
    expect(result).toEqual({
      ok: true,
      conditions: [
        { field: 'city', fieldType: 'text', operator: 'starts with', value: 'Lon' },
        { field: 'age', fieldType: 'number', operator: 'between', value: '18,30' },
        { field: 'joined', fieldType: 'datetime-local', operator: 'is not empty', value: '' },
      ],
    });
  });

  it('allows value to be left out when no condition takes one', () => {
    expect(parseConditions({ select_field: ['city'], select_operator: ['is empty'] }, fields)).toMatchObject({ ok: true });
  });

  it('compares text operators on number fields as text, so any value is allowed', () => {
    expect(parseConditions({ select_field: ['age'], select_operator: ['contains'], value: ['3x'] }, fields)).toMatchObject({ ok: true });
  });

  it.each<[string, Record<string, unknown>, Record<string, string[]>]>([
    ['nothing', {}, { select_field: ['The select field field is required.'], select_operator: ['The select operator field is required.'] }],
    ['empty arrays', { select_field: [], select_operator: [] }, { select_field: ['The select field field is required.'], select_operator: ['The select operator field is required.'] }],
    ['more values than conditions', { select_field: ['city'], select_operator: ['is'], value: ['a', 'b'] }, { value: ['The value field must not have more than 1 items.'] }],
    ['too many conditions', { select_field: Array(maxConditions + 1).fill('city'), select_operator: Array(maxConditions + 1).fill('is empty') }, { select_field: [`The select field field must not have more than ${maxConditions} items.`] }],
    ['a field that is not text', { select_field: [['city']], select_operator: ['is empty'] }, { 'select_field.0': ['The select field.0 field must be a string.'] }],
    ['a missing operator', { select_field: ['city', 'age'], select_operator: ['is empty', ''] }, { 'select_operator.1': ['The select operator.1 field is required.'] }],
    ['a value too long', { select_field: ['city'], select_operator: ['is'], value: ['x'.repeat(256)] }, { 'value.0': ['The value.0 field must not be greater than 255 characters.'] }],
    ['a date range with a bad bound', { select_field: ['joined'], select_operator: ['between'], value: ['2024-01-01,soon'] }, { 'value.0': ['The value.0 field must be a valid date.'] }],
    ['a range in three keys', { select_field: ['age'], select_operator: ['between'], value: [['1', '2', '3']] }, { 'value.0': ['The value.0 field must contain two values separated by a comma.'] }],
  ])('refuses %s', (_case, input, errors) => {
    expect(parseConditions(input, fields)).toEqual({ ok: false, errors });
  });

  it('reports every failing condition at once', () => {
    const result = parseConditions({ select_field: ['nope', 'age'], select_operator: ['is', 'less than'], value: ['x', 'young'] }, fields);
    expect(result).toEqual({
      ok: false,
      errors: { 'select_field.0': ['The selected select field.0 is invalid.'], 'value.1': ['The value.1 field must be a number.'] },
    });
  });
});
