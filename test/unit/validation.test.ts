// Field rules coerce form text and answer Laravel's messages.
import { ValidationError } from '../../shared/errors';
import { array, email, flag, integer, numeric, string, validate } from '../../shared/validation';

function errorsOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('validate', () => {
  it('returns typed, coerced values', () => {
    const input = validate(
      { group_name: '  VIP  ', is_display: '1', id: '12', ratio: '2.5', email_address: 'Ann@Example.COM', ids: ['1', '2'] },
      {
        group_name: string().required(),
        is_display: flag().required(),
        id: integer().required(),
        ratio: numeric(),
        email_address: email().required(),
        ids: array(integer().required()).required(),
        missing: string(),
      },
    );
    expect(input).toEqual({ group_name: 'VIP', is_display: 1, id: 12, ratio: 2.5, email_address: 'Ann@example.com', ids: [1, 2], missing: undefined });
  });

  it('names each missing field with spaces for underscores', () => {
    expect(errorsOf(() => validate({}, { group_name: string().required(), is_display: flag().required() }))).toEqual({
      group_name: ['The group name field is required.'],
      is_display: ['The is display field is required.'],
    });
  });

  it.each([
    [integer().required(), '1.5', 'The value field must be an integer.'],
    [numeric().required(), 'ten', 'The value field must be a number.'],
    [flag().required(), '2', 'The value field must be true or false.'],
    [email().required(), 'not-an-email', 'The value field must be a valid email address.'],
    [string().required().min(2), 'a', 'The value field must be at least 2 characters.'],
    [string().required().max(3), 'abcd', 'The value field must not be greater than 3 characters.'],
    [integer().required().min(1), '0', 'The value field must be at least 1.'],
    [string().required().in(['text', 'number']), 'date', 'The selected value is invalid.'],
    [string().required().regex(/^\w+$/), 'a-b', 'The value field format is invalid.'],
    [array(integer().required()).required(), 'x', 'The value field must be an array.'],
    [array(integer().required()).required(), ['1', 'x'], 'The value.1 field must be an integer.'],
  ])('answers the Laravel message (%#)', (field, value, message) => {
    expect(errorsOf(() => validate({ value }, { value: field }))).toEqual({ value: [message] });
  });

  it('snake-cases camelCase attributes as Laravel does', () => {
    expect(errorsOf(() => validate({}, { strIds: string().required(), groupId: string().required() }))).toEqual({
      strIds: ['The str ids field is required.'],
      groupId: ['The group id field is required.'],
    });
  });

  it('lets a field replace a message, as the spec does for email_owner', () => {
    const errors = errorsOf(() => validate({}, { email_owner: string().required().message('required', 'The name field is required') }));
    expect(errors).toEqual({ email_owner: ['The name field is required'] });
  });

  it('counts characters, not bytes', () => {
    expect(validate({ name: 'żó' }, { name: string().required().min(2).max(2) }).name).toBe('żó');
  });

  it('runs custom checks after the type', () => {
    const field = integer().required().check((value) => (value % 2 === 0 ? undefined : 'The value must be even.'));
    expect(errorsOf(() => validate({ value: '3' }, { value: field }))).toEqual({ value: ['The value must be even.'] });
  });
});
