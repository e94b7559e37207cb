// Rendering one recipient's mail: every placeholder, escaping, the footer rule, the preheader, the
// open pixel, the RFC 8058 headers and the text part.
import { dynamicContentNames } from '../../shared/rendering/dynamic-content';
import { findDesignTemplate } from '../../shared/templates/repository';
import { htmlToText } from '../../shared/rendering/html-text';
import { complianceFooter, fillPlaceholders, hasPreferencesLink, renderMail, type RenderInput } from '../../shared/rendering/render';

const links = {
  preferences: 'https://mail.example.com/api/public/preferences?token=abc.def&x=1',
  oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=abc.def',
  openPixel: 'https://mail.example.com/api/public/open?token=abc.def',
};

function input(overrides: Partial<RenderInput> = {}): RenderInput {
  return {
    designHtml: '<!DOCTYPE html><html><head><title>t</title></head><body><p>Hello ((first_name))</p></body></html>',
    subject: 'News for ((first_name))',
    preheader: 'This week, ((first_name))',
    fields: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', full_name: 'Ada Lovelace' },
    senderName: 'Acme News',
    senderAddress: '1 Main Street, Springfield',
    links,
    ...overrides,
  };
}

describe('placeholders', () => {
  test('every dynamic-content name is filled from the values', () => {
    const values = Object.fromEntries(dynamicContentNames.map((name) => [name, `<${name}>`]));
    const design = dynamicContentNames.map((name) => `[((${name}))]`).join('');
    const filled = fillPlaceholders(design, values);
    expect(filled).toBe(dynamicContentNames.map((name) => `[<${name}>]`).join(''));
  });

  test('unknown names and missing values become empty, never left showing', () => {
    expect(fillPlaceholders('a((nope))b((first_name))c', {})).toBe('abc');
  });

  test('custom fields fill by their field name', () => {
    const mail = renderMail(input({ designHtml: '<body>Plan: ((plan_level))</body>', fields: { plan_level: 'Gold' } }));
    expect(mail.html).toContain('Plan: Gold');
  });

  test('sender_name, sender_address and unsubscribe_preferences come from the send and the token', () => {
    const mail = renderMail(input({ designHtml: '<body>((sender_name)) / ((sender_address)) <a href="((unsubscribe_preferences))">prefs</a></body>' }));
    expect(mail.html).toContain('Acme News / 1 Main Street, Springfield');
    expect(mail.html).toContain('href="https://mail.example.com/api/public/preferences?token=abc.def&amp;x=1"');
  });

  test('values are HTML-escaped in the HTML, left as text in the subject', () => {
    const fields = { first_name: '<script>alert("x")</script> & Co' };
    const mail = renderMail(input({ fields }));
    expect(mail.html).toContain('Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(mail.html).not.toContain('<script>');
    expect(mail.subject).toBe('News for <script>alert("x")</script> & Co');
  });

  test('a value that itself looks like a placeholder is not filled again', () => {
    const mail = renderMail(input({ fields: { first_name: '((last_name))', last_name: 'secret' } }));
    expect(mail.html).toContain('Hello ((last_name))');
    expect(mail.html).not.toContain('secret');
  });

  test('line breaks never reach the subject header', () => {
    expect(renderMail(input({ subject: 'a\r\nBcc: x@example.com' })).subject).toBe('a Bcc: x@example.com');
  });
});

describe('footer', () => {
  test('is added before </body> when the design lacks the preferences link', () => {
    const mail = renderMail(input());
    const footerAt = mail.html.indexOf('Unsubscribe or manage your preferences');
    expect(footerAt).toBeGreaterThan(mail.html.indexOf('Hello Ada'));
    expect(footerAt).toBeLessThan(mail.html.indexOf('</body>'));
    expect(mail.html).toContain('Acme News<br>1 Main Street, Springfield');
    expect(mail.html).toContain('href="https://mail.example.com/api/public/preferences?token=abc.def&amp;x=1"');
  });

  test('is not added when the design has the placeholder', () => {
    const mail = renderMail(input({ designHtml: '<body><a href="((unsubscribe_preferences))">Leave</a></body>' }));
    expect(mail.html).not.toContain('Unsubscribe or manage your preferences');
  });

  test('is appended to a fragment without a body', () => {
    const mail = renderMail(input({ designHtml: '<p>Hi ((first_name))</p>' }));
    // The preheader goes first, the content follows, the footer comes after it.
    expect(mail.html).toMatch(/^<span class="preheader"[^>]*>This week, Ada<\/span><p>Hi Ada<\/p><table/);
    expect(mail.html).toContain('Unsubscribe or manage your preferences');
  });

  test('library templates carry their own footer, so none is added', () => {
    const template = findDesignTemplate(2) ?? findDesignTemplate(1);
    expect(template).toBeDefined();
    expect(hasPreferencesLink(template!.html_code, links.preferences)).toBe(true);
    const mail = renderMail(input({ designHtml: template!.html_code }));
    expect(mail.html.split('Unsubscribe or manage your preferences').length - 1).toBe(1);
  });

  test('the footer template itself offers the link', () => {
    expect(complianceFooter).toContain('((unsubscribe_preferences))');
    expect(complianceFooter).toContain('((sender_address))');
  });
});

describe('preheader, pixel and headers', () => {
  test('the preheader is added, hidden, right after <body>', () => {
    const mail = renderMail(input());
    expect(mail.html).toMatch(/<body><span class="preheader" style="display:none[^"]*">This week, Ada<\/span><p>Hello Ada/);
  });

  test("the send's preheader replaces a design's own", () => {
    const template = findDesignTemplate(2) ?? findDesignTemplate(1);
    const mail = renderMail(input({ designHtml: template!.html_code, preheader: 'Only this' }));
    expect(mail.html).toMatch(/<span class="preheader"[^>]*>Only this<\/span>/);
    expect(mail.html.match(/class="preheader"/g)).toHaveLength(1);
  });

  test("a design's preheader is found however its class is quoted, and its nested markup replaced too", () => {
    const single = renderMail(input({ designHtml: "<body><span class='preheader' style='display:none'>Old</span><p>x</p></body>" }));
    expect(single.html).toContain("<body><span class='preheader' style='display:none'>This week, Ada</span><p>x</p>");
    const nested = renderMail(input({ designHtml: '<body><span class="hidden preheader">Old <span>inner</span> tail</span><p>x</p></body>' }));
    expect(nested.html).toContain('<body><span class="hidden preheader">This week, Ada</span><p>x</p>');
  });

  test('a preheader span inside a comment or a script is not the preheader', () => {
    const design = '<body><!-- <span class="preheader">kept</span> --><script>"<span class=\\"preheader\\">kept</span>"</script><p>Hi</p></body>';
    const mail = renderMail(input({ designHtml: design }));
    expect(mail.html).toContain('<!-- <span class="preheader">kept</span> -->');
    expect(mail.html).toMatch(/^<body><span class="preheader" style="display:none[^"]*">This week, Ada<\/span><!--/);
  });

  test('the preheader goes after the whole <body> tag, even when an attribute holds a `>`', () => {
    const mail = renderMail(input({ designHtml: '<body data-note="a>b" style="margin:0"><p>Hi</p></body>' }));
    expect(mail.html).toMatch(/^<body data-note="a>b" style="margin:0"><span class="preheader"[^>]*>This week, Ada<\/span><p>Hi/);
  });

  test('an unclosed preheader span is left alone and the preheader added after <body>', () => {
    const mail = renderMail(input({ designHtml: '<body><p>Hi</p><span class="preheader">never closed</body>' }));
    expect(mail.html).toMatch(/^<body><span class="preheader"[^>]*>This week, Ada<\/span><p>Hi<\/p><span class="preheader">never closed/);
  });

  test('the preheader is escaped', () => {
    expect(renderMail(input({ preheader: '<b>bold</b>' })).html).toContain('&lt;b&gt;bold&lt;/b&gt;');
  });

  test('the open pixel sits last before </body>', () => {
    const mail = renderMail(input());
    expect(mail.html).toMatch(
      /<img src="https:\/\/mail\.example\.com\/api\/public\/open\?token=abc\.def" width="1" height="1" alt=""[^>]*><\/body><\/html>$/,
    );
  });

  test('List-Unsubscribe carries the one-click URL and List-Unsubscribe-Post the RFC 8058 value', () => {
    expect(renderMail(input()).headers).toEqual([
      { name: 'List-Unsubscribe', value: '<https://mail.example.com/api/public/unsubscribe?token=abc.def>' },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  test('the text part is readable: no markup, no preheader or pixel, links written out', () => {
    const text = renderMail(input()).text;
    expect(text).toContain('Hello Ada');
    expect(text).toContain('Unsubscribe or manage your preferences (https://mail.example.com/api/public/preferences?token=abc.def&x=1)');
    expect(text).not.toMatch(/<|This week/);
  });
});

describe('html to text', () => {
  test('decodes entities and keeps paragraphs apart', () => {
    expect(htmlToText('<p>Fish &amp; chips&nbsp;&#8364;5</p><p>Line<br>two</p>')).toBe('Fish & chips €5\n\nLine\ntwo');
  });

  test('the text part decodes typographic entities and bullets list items', () => {
    const text = renderMail(input({ designHtml: '<body><p>It&rsquo;s here &mdash; &copy; Acme</p><ul><li>One</li><li>Two</li></ul></body>' })).text;
    expect(text).toContain('It\u2019s here \u2014 \u00a9 Acme\n\n- One\n- Two');
  });

  test('drops head, style and comments', () => {
    expect(htmlToText('<html><head><title>x</title><style>p{}</style></head><body><!-- c --><p>Body</p></body></html>')).toBe('Body');
  });
});

describe('the text part is the text of the mail as sent', () => {
  // The text is written during the one scan that finds the preheader, from the design before the
  // preheader and pixel go in; these designs are the ones where an addition would change it.
  const link = '<a href="((unsubscribe_preferences))">Leave</a>';
  const designs: Record<string, string> = {
    'a library-like design': `<html><body><span class="preheader">Old</span><p>Hi <a href="https://x.example">there</a></p>${link}</body></html>`,
    'no preheader of its own': `<body><p>Hi</p>${link}</body>`,
    'a fragment ending inside an unclosed tag, which the pixel closes': `${link}<p>Hi</p><a href="https://x.example"`,
    'a fragment ending inside an unclosed comment': `${link}<p>Hi</p><!-- note`,
    'a preheader holding markup that outlives it': `<body>${link}<div hidden><span class="preheader"><div></span>x</div>y</div></body>`,
    'a </body> inside an attribute, where the pixel goes': `<body>${link}<p title="</body>">Hi</p></body>`,
    'a </body> inside a comment': `<body>${link}<!-- </body> --><p>Hi <b>there</p></body>`,
    'a </body> inside the preheader': `<body>${link}<span class="preheader"><!-- </body> -->Old</span><p>Hi</p>`,
  };
  for (const [name, designHtml] of Object.entries(designs)) {
    for (const preheader of ['Now, ((first_name))', '']) {
      test(`${name}${preheader === '' ? ', with no preheader' : ''}`, () => {
        const mail = renderMail(input({ designHtml, preheader }));
        expect(mail.text).toBe(htmlToText(mail.html));
      });
    }
  }

  test('a pixel that closes an unclosed tag shows in the text as that tag', () => {
    const mail = renderMail(input({ designHtml: `${link}<p>Hi</p><a href="https://x.example"` }));
    expect(mail.text).toBe('Leave (https://mail.example.com/api/public/preferences?token=abc.def&x=1)\n\nHi\n\nhttps://x.example');
  });
});
