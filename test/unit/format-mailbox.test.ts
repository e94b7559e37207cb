// The From and Reply-To mailboxes as SES gets them: display names encoded or quoted as needed, and
// never a line break or other control character, whatever a stored sender holds.
import { formatMailbox } from '../../shared/mail/mailer';

describe('formatMailbox', () => {
  it.each([
    ['a bare address', ' news@acme.example ', 'news@acme.example'],
    ['a plain display name', 'Acme News <news@acme.example>', 'Acme News <news@acme.example>'],
    ['an empty display name', ' <news@acme.example>', 'news@acme.example'],
    ['a name with specials, quoted', 'Acme, Inc. <news@acme.example>', '"Acme, Inc." <news@acme.example>'],
    ['a quoted name with a quote', '"Say \\"hi\\"" <news@acme.example>', '"Say \\"hi\\"" <news@acme.example>'],
    ['a non-ASCII name, encoded', 'Café <news@acme.example>', `=?UTF-8?B?${Buffer.from('Café').toString('base64')}?= <news@acme.example>`],
  ])('formats %s', (_, mailbox, formatted) => {
    expect(formatMailbox(mailbox)).toBe(formatted);
  });

  it.each([
    ['a LF', 'Acme\nNews <news@acme.example>', 'Acme News <news@acme.example>'],
    ['a CR', 'Acme\rNews <news@acme.example>', 'Acme News <news@acme.example>'],
    ['a CRLF', 'Acme\r\nNews <news@acme.example>', 'Acme News <news@acme.example>'],
    ['an injected header', 'Acme\r\nBcc: victim@example.com <news@acme.example>', '"Acme Bcc: victim@example.com" <news@acme.example>'],
    ['a tab, NUL, bell and DEL', 'A\tB\u0000C\u0007D\u007fE <news@acme.example>', 'A B C D E <news@acme.example>'],
    ['a non-ASCII name with a LF', 'Café\nNews <news@acme.example>', `=?UTF-8?B?${Buffer.from('Café News').toString('base64')}?= <news@acme.example>`],
    ['a quoted name with a CRLF', '"Acme,\r\nInc." <news@acme.example>', '"Acme, Inc." <news@acme.example>'],
    ['a line break around the name', '\r\nAcme News\r\n <news@acme.example>', 'Acme News <news@acme.example>'],
  ])('turns %s in a display name into a space', (_, mailbox, formatted) => {
    expect(formatMailbox(mailbox)).toBe(formatted);
  });

  it.each([
    'news@acme.example\r\nBcc: victim@example.com',
    'Acme <news@acme.example\nBcc: victim@example.com>',
    'Acme\n<news@acme.example>\r\n',
    '\u0001\u001f\u007f <news@acme.example>',
  ])('never answers a control character (%j)', (mailbox) => {
    // eslint-disable-next-line no-control-regex
    expect(formatMailbox(mailbox)).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
});
