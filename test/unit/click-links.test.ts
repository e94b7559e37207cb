// Click links: which targets are tracked, how an `<a>` tag is rewritten (as a browser reads the HTML),
// the signature binding a target to a token, the rendered mail's HTML and text, and SES click events.
import { clickLinkBuilder, clickUrl, isSignedClick, isTrackedTarget, linkHash, maxTrackedLinks, trackLinks } from '../../shared/rendering/click-tracking';
import { renderMail } from '../../shared/rendering/render';
import { feedbackOf } from '../../shared/feedback/ses-feedback';
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
const track = (target: string) => (isTrackedTarget(target) ? `T(${target})` : undefined);

describe('tracked targets', () => {
  test('absolute http(s) URLs are tracked; other schemes, fragments, relative links and our own pages are not', () => {
    expect(['https://shop.example/', 'HTTP://Shop.Example/a?b=1', 'https://shop.example'].map((target) => isTrackedTarget(target))).toEqual([true, true, true]);
    const untracked = ['mailto:a@example.com', 'tel:+1555', '#top', '/relative', 'javascript:alert(1)', 'https://', 'https:// spaced', `${base()}public/preferences?token=x`, `https://x.example/${'a'.repeat(2000)}`];
    expect(untracked.map((target) => isTrackedTarget(target))).toEqual(untracked.map(() => false));
  });
});

describe('trackLinks', () => {
  test('rewrites the href of each tracked <a>, keeping its other attributes; entities in the href are read as a browser reads them', () => {
    const html = '<p><A HREF="https://a.example/?x=1&amp;y=2" Class=\'big\' title="Go &quot;now&quot;">A</A> <a href=https://b.example/ target=_blank>B</a></p>';
    expect(trackLinks(html, track)).toBe(
      '<p><a href="T(https://a.example/?x=1&amp;y=2)" class="big" title="Go &quot;now&quot;">A</A> <a href="T(https://b.example/)" target="_blank">B</a></p>',
    );
  });

  test('leaves links in comments, scripts and styles, untracked hrefs and anchors without href as they are', () => {
    const html = '<!-- <a href="https://a.example/">x</a> --><script>"<a href=\'https://b.example/\'>"</script><a href="mailto:x@example.com">m</a><a name="top">t</a>';
    expect(trackLinks(html, track)).toBe(html);
  });

  test('a href with a quote in an unquoted value, and a repeated href (the first one counts, as in browsers)', () => {
    expect(trackLinks('<a href=https://a.example/?q="x" href="https://ignored.example/">A</a>', track)).toBe(
      '<a href="T(https://a.example/?q=&quot;x&quot;)" href="https://ignored.example/">A</a>',
    );
  });

  test(`at most ${maxTrackedLinks} links of one mail are tracked; the rest stay as they are`, () => {
    const html = '<a href="https://a.example/">A</a>'.repeat(maxTrackedLinks + 2);
    expect(trackLinks(html, track)).toBe(`${'<a href="T(https://a.example/)">A</a>'.repeat(maxTrackedLinks)}${'<a href="https://a.example/">A</a>'.repeat(2)}`);
  });

  test('the tracked link is escaped for the attribute it is written into', () => {
    expect(trackLinks('<a href="https://a.example/">A</a>', () => 'https://t.example/?a=1&b="2"<')).toBe('<a href="https://t.example/?a=1&amp;b=&quot;2&quot;&lt;">A</a>');
  });
});

describe('click signature', () => {
  test('binds the target to the token: any other target, token or signature fails', () => {
    const link = new URL(clickUrl('token.abc', 'https://shop.example/?a=1&b=2'));
    const [token, target, sig] = ['token', 'url', 'sig'].map((name) => link.searchParams.get(name) as string) as [string, string, string];

    expect(link.href.startsWith(`${base()}public/click?token=token.abc&url=`)).toBe(true);
    expect([token, target]).toEqual(['token.abc', 'https://shop.example/?a=1&b=2']);
    expect(isSignedClick(token, target, sig)).toBe(true);
    expect(isSignedClick(token, 'https://shop.example/?a=1&b=3', sig)).toBe(false);
    expect(isSignedClick('token.abd', target, sig)).toBe(false);
    expect(isSignedClick(token, target, `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(isSignedClick(token, target, '')).toBe(false);
    expect(isSignedClick(token, target, `${sig}AA`)).toBe(false);
  });

  test('a click link mailed before a key rotation keeps working, and the new key signs new links', () => {
    const oldKey = 'the-signing-key-links-were-mailed-under-0001';
    const newKey = 'the-signing-key-that-is-current-after-rotation';
    process.env.TOKEN_SIGNING_KEY = oldKey;
    resetConfig();
    const mailed = new URL(clickUrl('token.abc', 'https://shop.example/'));
    process.env.TOKEN_SIGNING_KEY = JSON.stringify({ current: 'k2', keys: { k1: oldKey, k2: newKey } });
    resetConfig();
    try {
      const sig = mailed.searchParams.get('sig') as string;
      expect(isSignedClick('token.abc', 'https://shop.example/', sig)).toBe(true);
      const fresh = new URL(clickUrl('token.abc', 'https://shop.example/')).searchParams.get('sig') as string;
      expect(fresh).not.toBe(sig);
      expect(isSignedClick('token.abc', 'https://shop.example/', fresh)).toBe(true);
    } finally {
      process.env.TOKEN_SIGNING_KEY = 'a-unit-test-signing-key-of-enough-length';
      resetConfig();
    }
  });

  test('a link hash is short and stable', () => {
    expect(linkHash('https://a.example/')).toBe(linkHash('https://a.example/'));
    expect(linkHash('https://a.example/')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(linkHash('https://a.example/')).not.toBe(linkHash('https://a.example'));
  });
});

describe('a rendered mail', () => {
  test("tracks the design's links in the HTML and the text part, never the preferences link", () => {
    const preferences = `${base()}public/preferences?token=tok`;
    const mail = renderMail({
      designHtml: '<body><p><a href="https://shop.example/((first_name))">Shop</a></p><p><a href="((unsubscribe_preferences))">Preferences</a></p></body>',
      subject: 's',
      preheader: '',
      fields: { first_name: 'ada' },
      senderName: 'Acme',
      senderAddress: '1 Main Street',
      links: { preferences, oneClickUnsubscribe: `${base()}public/unsubscribe?token=tok`, openPixel: `${base()}public/open?token=tok`, trackClick: clickLinkBuilder('tok') },
    });
    const tracked = clickUrl('tok', 'https://shop.example/ada');

    expect(mail.html).toContain(`<a href="${tracked.replace(/&/g, '&amp;')}">Shop</a>`);
    expect(mail.html).toContain(`<a href="${preferences}">Preferences</a>`);
    expect(mail.text).toContain(`Shop (${tracked})`);
    expect(mail.text).toContain(`Preferences (${preferences})`);
  });
});

describe('SES click events', () => {
  const utr = '0b7c6a43-3d1e-4b0e-9a55-4f5bb0c1c2d3';
  const mail = { messageId: 'm-1', destination: ['ada@example.com'], tags: { send_ref: [`s.5.${utr}`] } };
  const ref = { kind: 'single-send', accountId: 5, utr };

  test('a click on a link of the design counts; on our click links, our pages or a non-web link it is ignored', () => {
    expect(feedbackOf({ eventType: 'Click', mail, click: { link: 'https://shop.example/' } })).toEqual({ kind: 'click', ref, recipients: ['ada@example.com'], link: 'https://shop.example/' });
    expect(feedbackOf({ eventType: 'Click', mail, click: { link: clickUrl('t', 'https://shop.example/') } })).toEqual({ kind: 'ignored', reason: 'click on our click link' });
    expect(feedbackOf({ eventType: 'Click', mail, click: { link: `${base()}public/preferences?token=t` } })).toEqual({ kind: 'ignored', reason: 'click on an untracked link' });
    expect(feedbackOf({ eventType: 'Click', mail, click: {} })).toEqual({ kind: 'ignored', reason: 'click on an untracked link' });
  });
});
