// Links that cannot run code: an href a placeholder fills is checked as a URL once filled (contact
// data may say `javascript:`), a refused scheme left in a stored design is neutralised when the mail
// is rendered, and designs with such links are refused when saved.
import { renderMail, type RenderInput } from '../../shared/rendering/render';
import { isRefusedLink, isSafeFilledLink } from '../../shared/rendering/safe-url';
import { unsafeDesignHtmlMessage, unsafeDesignJsonMessage } from '../../shared/rendering/design-link-rule';

const links = {
  preferences: 'https://mail.example.com/api/public/preferences?token=abc.def',
  oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=abc.def',
  openPixel: 'https://mail.example.com/api/public/open?token=abc.def',
};

function render(designHtml: string, fields: Record<string, string>): string {
  const input: RenderInput = { designHtml, subject: 's', preheader: '', fields, senderName: 'Acme', senderAddress: '1 Main St', links };
  return renderMail(input).html;
}

const body = (content: string) => `<html><body>${content}<a href="((unsubscribe_preferences))">prefs</a></body></html>`;

describe('hrefs filled from placeholders', () => {
  it.each([
    ['javascript:alert(document.cookie)'],
    ['JavaScript:alert(1)'],
    [' java\tscript:alert(1)'],
    ['data:text/html;base64,PHNjcmlwdD4='],
    ['vbscript:msgbox(1)'],
    ['file:///etc/passwd'],
    ['ftp://example.com/x'],
  ])('replaces a link that comes out as %j by "#"', (website) => {
    const html = render(body('<a class="site" href="((website))" target="_blank">Site</a>'), { website });
    expect(html).toContain('<a class="site" href="#" target="_blank">Site</a>');
    expect(html.toLowerCase()).not.toMatch(/script:|data:|file:|ftp:/);
  });

  it('checks the whole filled value, not only the placeholder (a scheme split across text and data)', () => {
    const html = render(body('<a href="java((first_name))">x</a>'), { first_name: 'script:alert(1)' });
    expect(html).toContain('<a href="#">x</a>');
  });

  it.each([
    ['https://example.com/a?b=1&c=2', 'https://example.com/a?b=1&amp;c=2'],
    ['http://example.com/', 'http://example.com/'],
    ['mailto:ada@example.com', 'mailto:ada@example.com'],
    ['tel:+15550100', 'tel:+15550100'],
    ['example.com/page', 'example.com/page'],
  ])('keeps a link that comes out as %j (escaped in the attribute)', (website, written) => {
    expect(render(body(`<a href='((website))'>Site</a>`), { website })).toContain(`<a href="${written}">Site</a>`);
  });

  it('fills placeholders in the other attributes of a checked tag and leaves other tags as written', () => {
    const html = render(body('<p title=\'((first_name))\'>((first_name))</p><a title="For ((first_name))" href="https://x.example/?u=((email))">Go</a>'), {
      first_name: 'Ada "A" <L>',
      email: 'ada@example.com',
    });
    expect(html).toContain(`<p title='Ada &quot;A&quot; &lt;L&gt;'>Ada &quot;A&quot; &lt;L&gt;</p>`);
    expect(html).toContain('<a title="For Ada &quot;A&quot; &lt;L&gt;" href="https://x.example/?u=ada@example.com">Go</a>');
  });

  it('neutralises a javascript: link stored in a design before saving refused it', () => {
    const html = render(body('<a href="javascript&#58;alert(1)">x</a><a href="https://safe.example/">y</a>'), {});
    expect(html).toContain('<a href="#">x</a>');
    expect(html).toContain('<a href="https://safe.example/">y</a>');
  });

  it('renders every recipient of one design with their own checked link', () => {
    const design = body('<a href="((website))">Site</a>');
    expect(render(design, { website: 'javascript:x' })).toContain('<a href="#">Site</a>');
    expect(render(design, { website: 'https://ada.example/' })).toContain('<a href="https://ada.example/">Site</a>');
    expect(render(design, {})).toContain('<a href="">Site</a>');
  });

  // The design is scanned for these hrefs only when a quick read of every `href` in its text finds
  // one that may need it; the footer's own, filled with our page, never does.
  it('still checks a refused link in a design that gets the footer and has no placeholder', () => {
    const html = render('<p><a href="javascript:alert(1)">x</a> <a href="https://safe.example/">y</a></p>', {});
    expect(html).toContain('<a href="#">x</a> <a href="https://safe.example/">y</a>');
    expect(html).toContain(`<a href="${links.preferences}" target="_blank" style="color:#6b7280;text-decoration:underline;">Unsubscribe or manage your preferences</a>`);
  });

  it('still checks an href that starts inside the value of another attribute holding `href=`', () => {
    expect(render(`<a title='href="' href="javascript:alert(1)">x</a>`, {})).toContain('<a title="href=&quot;" href="#">x</a>');
    expect(render('<a title=href=x href=((website))>x</a>', { website: 'javascript:alert(1)' })).toContain('<a title="href=x" href="#">x</a>');
  });

  it('fills the footer as written wherever it lands, even inside a quote the design left open', () => {
    const pixel = `<img src="${links.openPixel}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px;">`;
    const footer = render('', {}).replace(pixel, '');
    expect(footer).toContain(`href="${links.preferences}"`);
    for (const design of [`<p title='x`, '<p title="x', '<p title=x', '<!-- x', '<style>x', '<p><a href="https://a.example/" title=']) {
      expect(render(design, {})).toBe(`${design}${footer}${pixel}`);
    }
  });

  it('leaves an href in a comment or a script alone (it is not a link)', () => {
    const html = render(body('<!-- <a href="((website))"> --><script>var a = \'<a href="((website))">\';</script>'), { website: 'https://x.example/' });
    expect(html).toContain('<!-- <a href="https://x.example/"> -->');
  });
});

describe('link schemes', () => {
  it.each(['javascript:x', ' JAVASCRIPT:x', 'java&#x09;script:x', 'jav&#97;script:x', 'data:,x', 'vbscript:x', '\u0000javascript:x', 'javascript&colon;x'])(
    'refuses %j',
    (value) => expect(isRefusedLink(value)).toBe(true),
  );

  it.each(['https://x.example', '/relative', '#top', 'mailto:a@b.example', 'tel:1', 'sms:1', '((website))', 'https://x.example/?q=javascript:'])('does not refuse %j', (value) =>
    expect(isRefusedLink(value)).toBe(false),
  );

  it('allows only http(s), mailto, tel and relative links to come from contact data', () => {
    expect(['https://x', 'HTTP://x', 'mailto:a', 'tel:1', 'x.example', '/a'].every(isSafeFilledLink)).toBe(true);
    expect(['sms:1', 'ftp://x', 'javascript:x', 'data:x', 'intent://x'].some(isSafeFilledLink)).toBe(false);
  });
});

describe('saving a design', () => {
  it('refuses HTML with a javascript:, data: or vbscript: link, naming the field', () => {
    expect(unsafeDesignHtmlMessage('template html')('<a href="javascript:alert(1)">x</a>')).toBe(
      'The template html field must not link to javascript:, data: or vbscript: URLs.',
    );
    expect(unsafeDesignHtmlMessage('template html')('<a HREF = \'data:text/html,x\'>x</a>')).toBeDefined();
    expect(unsafeDesignHtmlMessage('template html')('<area href=vbscript:x>')).toBeDefined();
  });

  it('accepts ordinary links, placeholders in links, and the words in text or comments', () => {
    const html = '<p>javascript: is fun</p><!-- <a href="javascript:x"> --><a href="((website))">a</a><a href="https://x.example/">b</a><a href="mailto:a@x.example">c</a>';
    expect(unsafeDesignHtmlMessage('template html')(html)).toBeUndefined();
  });

  it('refuses a JSON design whose button links to javascript:, and accepts other JSON', () => {
    const design = (url: string) =>
      JSON.stringify({ version: 1, preheader: '', theme: {}, blocks: [{ type: 'hero', heading: 'h', button: { label: 'Go', url } }, { type: 'button', label: 'b', url: 'https://x.example' }] });
    expect(unsafeDesignJsonMessage('template json')(design('javascript:alert(1)'))).toBe('The template json field must not link to javascript:, data: or vbscript: URLs.');
    expect(unsafeDesignJsonMessage('template json')(design('https://ok.example'))).toBeUndefined();
    expect(unsafeDesignJsonMessage('template json')(JSON.stringify({ note: 'data: a text, not a link' }))).toBeUndefined();
    expect(unsafeDesignJsonMessage('template json')('not json')).toBeUndefined();
  });
});
