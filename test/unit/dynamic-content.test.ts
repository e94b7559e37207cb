// The dynamic-content names and placeholder helpers.
import { dynamicContentNames, isDynamicContentName, placeholder, placeholdersIn } from '../../shared/rendering/dynamic-content';
import { reservedFieldNames } from '../../shared/custom-fields/reserved-fields';

describe('dynamic content', () => {
  it("lists the spec's 21 names in the spec's order", () => {
    expect(dynamicContentNames).toEqual([
      'first_name', 'last_name', 'email', 'alt_email', 'country', 'state', 'city', 'address_line1', 'address_line2',
      'state_province_region', 'postal_code', 'full_name', 'father_name', 'designation', 'age', 'company_name',
      'birth_date', 'join_date', 'sender_name', 'sender_address', 'unsubscribe_preferences',
    ]);
  });

  it('starts with every reserved contact field, in the same order', () => {
    expect(dynamicContentNames.slice(0, reservedFieldNames.length)).toEqual([...reservedFieldNames]);
  });

  it('knows its own names only, case-sensitively', () => {
    expect(isDynamicContentName('sender_address')).toBe(true);
    expect(isDynamicContentName('First_Name')).toBe(false);
    expect(isDynamicContentName('password')).toBe(false);
  });

  it('writes and finds placeholders', () => {
    expect(placeholder('first_name')).toBe('((first_name))');
    expect(placeholdersIn('Hi ((first_name)) ((last_name)), ((first_name)) again; (not) ((a b)) (x)')).toEqual(['first_name', 'last_name']);
    expect(placeholdersIn('no placeholders')).toEqual([]);
  });
});
