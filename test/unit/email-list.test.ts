// The comma-separated address list rule: splitting, trimming, validation, de-duplication and its limit.
import { emailList, maxListedAddresses, parseEmailList } from '../../shared/validation/email-list';
import { validate } from '../../shared/validation';

describe('email list', () => {
  it('splits on commas, trims, drops empty entries and lower-cases only the domain', () => {
    expect(parseEmailList(' a@example.com,,B.Person@Example.ORG ,\t c@x.io ,')).toEqual({
      ok: true,
      value: ['a@example.com', 'B.Person@example.org', 'c@x.io'],
    });
  });

  it('keeps the first spelling of an address repeated in another letter case', () => {
    expect(parseEmailList('Ann@example.com, ann@EXAMPLE.com, ANN@example.com, bob@example.com')).toEqual({
      ok: true,
      value: ['Ann@example.com', 'bob@example.com'],
    });
  });

  it('names every bad entry once, in order', () => {
    expect(parseEmailList('good@example.com, no-at-sign, a@b, no-at-sign, x@y.z w')).toEqual({
      ok: false,
      message: 'The email address field must contain valid email addresses: no-at-sign, a@b, x@y.z w.',
    });
  });

  it('treats a list with no entries as missing', () => {
    expect(parseEmailList(' , ,, ')).toEqual({ ok: false, message: 'The email address field is required.' });
  });

  it('accepts the limit and refuses one more distinct address', () => {
    const addresses = Array.from({ length: maxListedAddresses + 1 }, (_, i) => `r${i}@example.com`);
    expect(parseEmailList(addresses.slice(0, maxListedAddresses).join(','))).toMatchObject({ ok: true });
    expect(parseEmailList(addresses.join(','))).toEqual({
      ok: false,
      message: `The email address field must not contain more than ${maxListedAddresses} addresses.`,
    });
    // Repeats do not count against the limit.
    expect(parseEmailList([...addresses.slice(0, maxListedAddresses), 'R0@example.com'].join(','))).toMatchObject({ ok: true });
  });

  it('works as a schema field: required, text only, and named by its attribute', () => {
    const schema = { email_address: emailList().required() };
    expect(validate({ email_address: 'a@example.com, b@example.com' }, schema)).toEqual({ email_address: ['a@example.com', 'b@example.com'] });
    expect(() => validate({}, schema)).toThrow(expect.objectContaining({ errors: { email_address: ['The email address field is required.'] } }));
    expect(() => validate({ email_address: 5 }, schema)).toThrow(
      expect.objectContaining({ errors: { email_address: ['The email address field must be a string.'] } }),
    );
    expect(() => validate({ recipients: 'nope' }, { recipients: emailList('recipients').required() })).toThrow(
      expect.objectContaining({ errors: { recipients: ['The recipients field must contain valid email addresses: nope.'] } }),
    );
  });
});
