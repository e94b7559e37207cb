// The hidden link of a tracked mail: signed apart from the visible links, put out of sight beside the
// pixel, to the first tracked target, never in the text part; none in a mail without tracked links.
import { clickLinkBuilder, clickUrl, hiddenClickUrl, signedClickKind } from '../../shared/rendering/click-tracking';
import { htmlToText } from '../../shared/rendering/html-text';
import { renderMail, type RenderInput } from '../../shared/rendering/render';
import { config, resetConfig } from '../../shared/config';

beforeAll(() => {
  process.env.APP_RUNTIME = 'local';
  process.env.TABLE_NAME = 'unit';
  process.env.PUBLIC_BASE_URL = 'https://mail.example.com/api/';
  process.env.TOKEN_SIGNING_KEY = 'a-unit-test-signing-key-of-enough-length';
  resetConfig();
});

afterAll(() => {
  delete process.env.TOKEN_SIGNING_KEY;
  delete process.env.PUBLIC_BASE_URL;
  resetConfig();
});

const base = () => config().publicBaseUrl;

function render(designHtml: string, hidden = true): ReturnType<typeof renderMail> {
  const links: RenderInput['links'] = {
    preferences: `${base()}public/preferences?token=tok`,
    oneClickUnsubscribe: `${base()}public/unsubscribe?token=tok`,
    openPixel: `${base()}public/open?token=tok`,
    trackClick: clickLinkBuilder('tok'),
    ...(hidden ? { hiddenClick: (target: string) => hiddenClickUrl('tok', target) } : {}),
  };
  return renderMail({ designHtml, subject: 's', preheader: '', fields: {}, senderName: 'Acme', senderAddress: '1 Main Street', links });
}

const escaped = (url: string) => url.replace(/&/g, '&amp;');
const pixel = () => `<img src="${base()}public/open?token=tok" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px;">`;

describe('the hidden link', () => {
  test('is signed for itself: the click endpoint tells it from the visible link to the same target, and refuses anything else', () => {
    const target = 'https://shop.example/a';
    const sig = (url: string) => new URL(url).searchParams.get('sig') as string;

    expect(signedClickKind('tok', target, sig(clickUrl('tok', target)))).toBe('link');
    expect(signedClickKind('tok', target, sig(hiddenClickUrl('tok', target)))).toBe('hidden');
    expect(sig(hiddenClickUrl('tok', target))).not.toBe(sig(clickUrl('tok', target)));
    expect(signedClickKind('tok', 'https://shop.example/b', sig(hiddenClickUrl('tok', target)))).toBeUndefined();
    expect(signedClickKind('other', target, sig(hiddenClickUrl('tok', target)))).toBeUndefined();
  });

  test('goes hidden right before the pixel, to the first tracked target, and stays out of the text', () => {
    const design = '<html><body><p><a href="mailto:a@example.com">Write</a> <a href="https://shop.example/a">Shop</a> <a href="https://blog.example/">Blog</a></p></body></html>';
    const mail = render(design);
    const hidden = hiddenClickUrl('tok', 'https://shop.example/a');

    expect(mail.html).toContain(
      `<div style="display:none!important;mso-hide:all;max-height:0;max-width:0;overflow:hidden;opacity:0;" aria-hidden="true"><a href="${escaped(hidden)}" tabindex="-1"></a></div>${pixel()}</body>`,
    );
    // The text is the one the mail has without it.
    expect(mail.text).toBe(render(design, false).text);
    expect(mail.text).toContain(`Shop (${clickUrl('tok', 'https://shop.example/a')})`);
    expect(htmlToText(mail.html)).toBe(mail.text);
  });

  test('goes after the pixel of a fragment without a body, hidden from the text as well', () => {
    const design = '<p><a href="https://shop.example/a">Shop</a></p>';
    const mail = render(design);

    expect(mail.html.endsWith(`${pixel()}<div style="display:none!important;mso-hide:all;max-height:0;max-width:0;overflow:hidden;opacity:0;" aria-hidden="true"><a href="${escaped(hiddenClickUrl('tok', 'https://shop.example/a'))}" tabindex="-1"></a></div>`)).toBe(true);
    expect(mail.text).toBe(render(design, false).text);
    expect(htmlToText(mail.html)).toBe(mail.text);
  });

  test('is left out of a mail with no tracked link, of a mail rendered without one, and of a design ending in a comment', () => {
    expect(render('<body><p><a href="mailto:a@example.com">Write</a></p></body>').html).not.toContain('public/click');
    expect(render('<body><p><a href="https://shop.example/a">Shop</a></p></body>', false).html).not.toContain('aria-hidden');
    expect(render('<p><a href="https://shop.example/a">Shop</a></p><!-- unclosed').html).not.toContain('aria-hidden');
  });
});
