// Bracketed form keys fold into arrays and objects the way the spec's clients send them.
import { BadRequestError, HttpError } from '../../shared/http/errors';
import { foldFormPairs, formLimits, splitKey } from '../../shared/http/form-keys';

describe('form keys', () => {
  it('splits bracketed keys', () => {
    expect(splitKey('strIds[0]')).toEqual(['strIds', '0']);
    expect(splitKey('custom_field[age]')).toEqual(['custom_field', 'age']);
    expect(splitKey('a[b][0]')).toEqual(['a', 'b', '0']);
    expect(splitKey('tags[]')).toEqual(['tags', '']);
    expect(splitKey('plain')).toEqual(['plain']);
    expect(splitKey('broken[0')).toEqual(['broken[0']);
    expect(splitKey('[0]')).toEqual(['[0]']);
  });

  it('folds indexed keys into arrays ordered by index', () => {
    expect(foldFormPairs([['strIds[1]', '20'], ['strIds[0]', '10'], ['strIds[10]', '30']])).toEqual({ strIds: ['10', '20', '30'] });
  });

  it('folds named keys into objects and appends empty brackets', () => {
    expect(foldFormPairs([['custom_field[age]', '30'], ['custom_field[city]', 'Oslo'], ['tags[]', 'a'], ['tags[]', 'b']])).toEqual({
      custom_field: { age: '30', city: 'Oslo' },
      tags: ['a', 'b'],
    });
  });

  it('keeps the last value of a repeated plain key', () => {
    expect(foldFormPairs([['name', 'first'], ['name', 'second']])).toEqual({ name: 'second' });
  });

  it('never lets a form reach Object.prototype', () => {
    const fields = foldFormPairs([['__proto__[polluted]', 'yes'], ['a[constructor][prototype][x]', 'y']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(fields, '__proto__')).toBe(false);
  });
});

describe('form keys a client can get wrong', () => {
  it('keeps a non-canonical index such as `a[01]` as a named key instead of failing', () => {
    expect(foldFormPairs([['a[01]', 'x']])).toEqual({ a: { '01': 'x' } });
    expect(foldFormPairs([['a[0]', 'x'], ['a[00]', 'y']])).toEqual({ a: { '0': 'x', '00': 'y' } });
    expect(foldFormPairs([['a[9007199254740993]', 'x']])).toEqual({ a: { '9007199254740993': 'x' } });
  });

  it('appends `a[]` after the highest index given, as PHP does', () => {
    expect(foldFormPairs([['a[5]', 'x'], ['a[]', 'y']])).toEqual({ a: ['x', 'y'] });
    expect(foldFormPairs([['a[]', 'x'], ['a[]', 'y'], ['a[]', 'z']])).toEqual({ a: ['x', 'y', 'z'] });
  });

  it('refuses keys nested deeper than the limit with a 400', () => {
    const deepest = `a${'[]'.repeat(formLimits.depth)}`;
    expect(() => foldFormPairs([[deepest, 'x']])).not.toThrow();
    const tooDeep = () => foldFormPairs([[`${deepest}[]`, 'x']]);
    expect(tooDeep).toThrow(BadRequestError);
    expect(tooDeep).toThrow(`A field name is nested more than ${formLimits.depth} levels deep.`);
  });

  it('refuses a very deep key with an error, never a stack overflow', () => {
    const attempt = () => foldFormPairs([[`a${'[]'.repeat(100_000)}`, 'x']]);
    expect(attempt).toThrow(HttpError);
  });

  it('refuses too many fields, too long a name and too large a value with a 413', () => {
    const many = Array.from({ length: formLimits.fields + 1 }, (_, i): [string, string] => [`f${i}`, 'x']);
    expect(() => foldFormPairs(many)).toThrow(expect.objectContaining({ statusCode: 413, errors: `The body has more than ${formLimits.fields} fields.` }));
    expect(() => foldFormPairs(many.slice(1))).not.toThrow();
    const longName = 'n'.repeat(formLimits.nameBytes + 1);
    expect(() => foldFormPairs([[longName, 'x']])).toThrow(expect.objectContaining({ statusCode: 413, errors: `A field name is longer than ${formLimits.nameBytes} bytes.` }));
    expect(() => foldFormPairs([[longName.slice(1), 'x']])).not.toThrow();
    const bigValue = 'v'.repeat(formLimits.valueBytes + 1);
    expect(() => foldFormPairs([['name', bigValue]])).toThrow(expect.objectContaining({ statusCode: 413, errors: 'The value of a field is larger than 1 MB.' }));
  });
});
