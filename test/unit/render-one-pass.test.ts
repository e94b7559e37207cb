// The renderer reads a recipient's filled design once: that one scan rewrites the tracked links,
// finds the body and the preheader, and writes the text, from each link as the mail holds it. The
// result is the mail that tracking the links first (click-tracking.ts, a scan of its own) and then
// adding the preheader and the pixel would make, and the text is the text of that mail, whatever the
// design holds: `</body>` where no tag is, links past the tracking limit, a design ending inside a tag.
import { maxTrackedLinks, trackLinks } from '../../shared/rendering/click-tracking';
import { LandmarkFinder, parseStartTag, scanHtml } from '../../shared/rendering/html-scanner';
import { htmlToText } from '../../shared/rendering/html-text';
import { renderMail, type RenderInput } from '../../shared/rendering/render';

/** Tracks every absolute http(s) link but our own pages, as click-tracking.ts does; its `"`, `&` and `<` must come out escaped in the href. */
const track = (target: string) => (/^https?:\/\/(?!mail\.example\.com\/)./i.test(target) ? `https://t.example/c?u=${encodeURIComponent(target)}&n="1"<` : undefined);

function input(designHtml: string, overrides: Partial<RenderInput> = {}): RenderInput {
  return {
    designHtml,
    subject: 'News',
    preheader: 'This week',
    fields: {},
    senderName: 'Acme News',
    senderAddress: '1 Main Street, Springfield',
    links: {
      preferences: 'https://mail.example.com/api/public/preferences?token=abc.def',
      oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=abc.def',
      openPixel: 'https://mail.example.com/api/public/open?token=abc.def',
      trackClick: track,
    },
    ...overrides,
  };
}

/** The same mail with the links tracked beforehand, in a scan of their own, and none tracked while rendering. */
function trackedFirst(designHtml: string, preheader: string): ReturnType<typeof renderMail> {
  const untracked = input(designHtml, { preheader });
  delete untracked.links.trackClick;
  return renderMail({ ...untracked, designHtml: trackLinks(designHtml, track) });
}

// Each design holds the preferences link, so no footer is added (the footer would be added after tracking).
const own = '<a href="https://mail.example.com/api/public/preferences?token=abc.def">Leave</a>';
const designs: Record<string, string> = {
  'a library-like design': `<html><head><title>t</title></head><body><span class="preheader">Old</span><p>Hi <a class="x" href='https://a.example/?q=1&amp;r=2'>there</a></p>${own}</body></html>`,
  'links before and after the preheader and the body': `<a href="https://a.example/">A</a><body><a href="https://b.example/">B</a><span class="preheader">Old <a href="https://c.example/">C</a></span>${own}<a href=https://d.example/ target=_blank>D</a></body>`,
  'a link inside the preheader it replaces': `<body><span class="preheader"><a href="https://a.example/">A</a></span><p>Hi</p>${own}</body>`,
  'a link in a comment and in a script is no link': `<body><!-- <a href="https://a.example/">A</a> --><script><a href="https://b.example/"></script>${own}</body>`,
  'a </body> inside a tracked link, before the real one': `<body>${own}<a href="https://a.example/" </body >A</a><p>Hi</p></body>`,
  'a </body> inside a tracked link, and no real one': `<body>${own}<a href="https://a.example/" title="x" </body >A</a><p>Hi</p>`,
  'a </body> inside an attribute of a tracked link': `<body>${own}<a href="https://a.example/" title="</body>">A</a></body>`,
  'a fragment ending inside an unclosed link, which the pixel closes': `${own}<p>Hi <a href="https://a.example/">A</a></p><a href="https://b.example/"`,
  'a fragment ending inside an unclosed body tag': `${own}<p>Hi</p><body class="x"`,
  'a fragment ending inside an unclosed preheader span': `${own}<p>Hi</p><span class="preheader"`,
  'a fragment ending inside an attribute value the pixel cannot close': `${own}<p>Hi</p><a href="https://b.example/" title='x`,
  'a fragment ending inside a comment': `${own}<p>Hi <a href="https://a.example/">A</a></p><!-- <a href="https://b.example/">`,
  'a fragment ending in `</`': `${own}<p>Hi</p></`,
  'links past the tracking limit': `<body>${own}${'<p><a href="https://a.example/">A</a></p>'.repeat(maxTrackedLinks + 3)}</body>`,
  'self-closing and uppercase links, and repeated hrefs': `<body>${own}<A HREF="https://a.example/" href="https://ignored.example/">A</A><a href="https://b.example/" />B</body>`,
};

describe('one scan makes the mail that tracking links first would', () => {
  for (const [name, designHtml] of Object.entries(designs)) {
    for (const preheader of ['This week', '']) {
      test(`${name}${preheader === '' ? ', with no preheader' : ''}`, () => {
        const mail = renderMail(input(designHtml, { preheader }));
        const expected = trackedFirst(designHtml, preheader);
        expect(mail.html).toBe(expected.html);
        expect(mail.text).toBe(expected.text);
        expect(mail.text).toBe(htmlToText(mail.html));
      });
    }
  }

  test('the text carries each tracked link as the mail holds it', () => {
    const mail = renderMail(input(`<body>${own}<p><a href="https://a.example/">A</a></p></body>`));
    const tracked = 'https://t.example/c?u=https%3A%2F%2Fa.example%2F&n="1"<';
    expect(mail.html).toContain(`<a href="https://t.example/c?u=https%3A%2F%2Fa.example%2F&amp;n=&quot;1&quot;&lt;">A</a>`);
    expect(mail.text).toBe(`Leave (https://mail.example.com/api/public/preferences?token=abc.def)\n\nA (${tracked})`);
  });

  test('a design ending inside a link: the pixel ends the tag, and the link it makes is not tracked', () => {
    const mail = renderMail(input(`${own}<p>Hi</p><a href="https://b.example/"`, { preheader: '' }));
    expect(mail.html).toBe(`${own}<p>Hi</p><a href="https://b.example/"<img src="https://mail.example.com/api/public/open?token=abc.def" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px;">`);
    expect(mail.text).toBe('Leave (https://mail.example.com/api/public/preferences?token=abc.def)\n\nHi\n\nhttps://b.example/');
  });
});

describe('parseStartTag', () => {
  test('reads a whole start tag as the scanner does', () => {
    const tag = parseStartTag(`<A Href="x>y" title='a"b' data-x=1 hidden/>`);
    expect(tag && { ...tag, attributes: [...tag.attributes] }).toEqual({
      kind: 'open',
      name: 'a',
      start: 0,
      end: 43,
      selfClosing: true,
      hasContent: false,
      rawText: false,
      attributes: ['href', 'x>y', 'title', 'a"b', 'data-x', '1', 'hidden', ''],
    });
  });

  test('is undefined for anything else: an end tag, text after the tag, a tag never closed, text', () => {
    expect(['</a>', '<a href="x">y', '<a href="x"', 'a', '', '< a>'].map((html) => parseStartTag(html))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('LandmarkFinder', () => {
  test('gives the body and the preheader where they are once what comes before them moved by `shift`', () => {
    const html = '<body class="b"><span class="preheader">Old</span>';
    const finder = new LandmarkFinder();
    scanHtml(html, { tag: (tag) => finder.tag(tag, 5) });
    expect(finder.found).toEqual({ bodyStart: 16 + 5, preheader: { start: 40 + 5, end: 43 + 5 } });
  });
});
