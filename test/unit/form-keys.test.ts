// Bracketed form keys fold into arrays and objects the way the spec's clients send them.
import { foldFormPairs, splitKey } from '../../shared/http/form-keys';

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
