// The harmless form of a recipient's mail (test sends and previews): the mail recipientMail composes,
// with no link that acts on the send (every recipient token swapped for a test token the public
// pages refuse, tracked links back to their targets) and no SES tag naming the send.
import { resetConfig } from '../../shared/config';
import { recipientMail } from '../../shared/delivery/recipient-mail';
import { verifyRecipientToken } from '../../shared/public-links/recipient-links';
import type { SendContent } from '../../shared/delivery/send-content';
import type { SendRef } from '../../shared/ledger/send-ref';
import { harmlessRecipientMail, sampleFields, testRecipient, testRecipientPurpose } from '../../shared/test-sends/test-mail';
import { verifyToken } from '../../shared/signed-token';

const ref: SendRef = { kind: 'single-send', accountId: 12, utr: '3f0c1a9e-5b7d-4c2e-9a41-0d6b8e2f7c13' };

function content(designHtml: string): SendContent {
  return {
    subject: 'Hello ((first_name))',
    preheader: 'Spring',
    designHtml,
    fromEmail: 'news@acme.example',
    replyTo: null,
    senderName: 'Acme News',
    senderAddress: '1 Main Street',
    unsubscribeGroupId: 4,
  };
}

/** Every recipient token a text carries in one of our links. */
function tokensIn(text: string): string[] {
  return [...text.matchAll(/public\/[a-z]+\?token=([A-Za-z0-9._~%-]+)/g)].map((match) => decodeURIComponent(match[1] as string));
}

describe('harmlessRecipientMail', () => {
  beforeAll(() => {
    process.env.APP_RUNTIME = 'local';
    process.env.TABLE_NAME = 'unit';
    process.env.PUBLIC_BASE_URL = 'https://mail.example.com/api/';
    process.env.TOKEN_SIGNING_KEY = 'unit-test-test-mail-key';
    resetConfig();
  });

  afterAll(() => {
    for (const name of ['APP_RUNTIME', 'TABLE_NAME', 'PUBLIC_BASE_URL', 'TOKEN_SIGNING_KEY']) delete process.env[name];
    resetConfig();
  });

  it('keeps the mail as composed but for its links, which carry only a test token and go straight to their targets', () => {
    const design =
      '<html><body><p>Hi ((first_name))</p><a href="https://shop.example/a?x=1&amp;y=2">Shop</a>' +
      // A design's own pixel-like URL is not the recipient's token, and is left as it is.
      '<img src="https://mail.example.com/api/public/open?token=decoy"></body></html>';
    const recipient = testRecipient('qa@acme.example', { contactId: null, fields: { ...sampleFields } });
    const real = recipientMail(ref, content(design), recipient);
    const harmless = harmlessRecipientMail(ref, content(design), recipient);

    expect(real.html).toContain('public/click?token=');
    expect(harmless.html).not.toContain('public/click');
    expect(harmless.html).toContain('<a href="https://shop.example/a?x=1&amp;y=2">Shop</a>');
    expect(harmless.text).toContain('https://shop.example/a?x=1&y=2');
    expect(harmless.html).toContain('public/open?token=decoy');
    expect(harmless.subject).toBe('Hello Jane');
    expect(harmless.from).toBe(real.from);
    expect(harmless.tags).toEqual([]);

    const headerText = (harmless.headers ?? []).map((header) => header.value).join('\n');
    const tokens = [...tokensIn(harmless.html), ...tokensIn(harmless.text ?? ''), ...tokensIn(headerText)].filter((token) => token !== 'decoy');
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    for (const token of tokens) {
      expect(verifyRecipientToken(token).valid).toBe(false);
      expect(verifyToken(testRecipientPurpose, token)).toEqual({ valid: true, claims: { s: 's.12.3f0c1a9e-5b7d-4c2e-9a41-0d6b8e2f7c13', e: 'qa@acme.example' } });
    }
    // The real mail's links, for contrast, act on the send.
    expect(tokensIn(real.html).filter((token) => token !== 'decoy').every((token) => verifyRecipientToken(token).valid)).toBe(true);
  });
});
