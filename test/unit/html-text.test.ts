// The plain-text part of a mail, derived from its HTML: entities, links, lists, line structure and
// what is left out. The format the converter writes:
//   - a link is `label (href)`, or the bare href when the label is empty or is the href itself;
//   - `<ul>` items start with `- `, `<ol>` items with `1. `, `2. `...; a nested list is indented
//     under its item's text; a list stands apart from the paragraphs around it by one blank line;
//   - paragraphs, headings, divs, table rows and tables are separated by one blank line, `<br>` ends
//     a line, table cells on one row are separated by a space, and runs of whitespace in the source
//     (newlines included) are one space, as a browser shows them;
//   - head, title, style, script, comments and hidden elements (the preheader, `display:none`,
//     `hidden`) are left out, and so are images.
import { decodeEntities } from '../../shared/rendering/html-entities';
import { htmlToText } from '../../shared/rendering/html-text';

describe('entities', () => {
  test('named entities beyond the basic six are decoded', () => {
    expect(htmlToText('<p>It&rsquo;s &copy; 2024 &mdash; more&hellip; caf&eacute;&nbsp;bar &Eacute;t&eacute; &euro;5 &trade; &laquo;x&raquo; &lsquo;q&rsquo; &ldquo;d&rdquo; &bull; &ndash;</p>')).toBe(
      'It\u2019s \u00a9 2024 \u2014 more\u2026 caf\u00e9 bar \u00c9t\u00e9 \u20ac5 \u2122 \u00abx\u00bb \u2018q\u2019 \u201cd\u201d \u2022 \u2013',
    );
  });

  test('decimal and hexadecimal references are decoded', () => {
    expect(htmlToText('<p>it&#8217;s &#x2014; &#X2019; &#169;</p>')).toBe('it\u2019s \u2014 \u2019 \u00a9');
  });

  test('unknown names and bare ampersands stay as written', () => {
    expect(htmlToText('<p>AT&T &bogus; &amp &copy=2 a & b</p>')).toBe('AT&T &bogus; &amp &copy=2 a & b');
  });

  test('names are case-sensitive, as in HTML', () => {
    expect(decodeEntities('&eacute;&Eacute;&AMP;')).toBe('\u00e9\u00c9&');
  });

  test('references outside Unicode, to NUL or to a surrogate become U+FFFD instead of throwing', () => {
    expect(htmlToText('<p>a&#99999999;b&#0;c&#xD800;d&#x110000;e</p>')).toBe('a\ufffdb\ufffdc\ufffdd\ufffde');
  });

  test('references to the C1 range mean the Windows-1252 characters, as browsers read them', () => {
    expect(htmlToText('<p>&#150; &#147;x&#148; &#128;</p>')).toBe('\u2013 \u201cx\u201d \u20ac');
  });

  test('entities in an href are decoded', () => {
    expect(htmlToText('<a href="https://x.example/?a=1&amp;b=2">Go</a>')).toBe('Go (https://x.example/?a=1&b=2)');
  });
});

describe('links', () => {
  test('double-quoted, single-quoted and unquoted hrefs are written the same way', () => {
    expect(htmlToText('<p><a href="https://a.example/1">One</a></p>')).toBe('One (https://a.example/1)');
    expect(htmlToText("<p><a href='https://a.example/2'>Two</a></p>")).toBe('Two (https://a.example/2)');
    expect(htmlToText('<p><a href=https://a.example/3>Three</a></p>')).toBe('Three (https://a.example/3)');
    expect(htmlToText('<p><A class="btn" HREF = "https://a.example/4" target=_blank>Four</A></p>')).toBe('Four (https://a.example/4)');
  });

  test('a `>` inside another attribute does not end the tag', () => {
    expect(htmlToText('<a title="a > b" href="https://d.example/">D</a>')).toBe('D (https://d.example/)');
  });

  test('the bare href when the label is empty (an image) or is the href itself', () => {
    expect(htmlToText('<a href="https://x.example/"><img src="logo.png" alt="Logo"></a>')).toBe('https://x.example/');
    expect(htmlToText('<a href="https://x.example/">https://x.example/</a>')).toBe('https://x.example/');
  });

  test('the label keeps its words and the text around the link its spaces', () => {
    expect(htmlToText('<p>Read <a href="https://x.example/"><b>the</b>\n  <i>rest</i></a> here.</p>')).toBe('Read the rest (https://x.example/) here.');
  });

  test('a button built of a table inside the link reads as one label', () => {
    expect(htmlToText('<a href="https://x.example/"><table><tr><td>Shop now</td></tr></table></a>')).toBe('Shop now (https://x.example/)');
  });

  test('a link that ends inside a hidden element it holds closes that element, as a browser does: its text stays out and the link is written once', () => {
    expect(htmlToText('<a href="u">x<b>y</b><span hidden>z</a></span> after')).toBe('xy (u) after');
    expect(htmlToText('<p>Read <a href="https://x.example/">more<span class="preheader">secret</a> now</span>.</p>')).toBe('Read more (https://x.example/) now.');
    expect(htmlToText('<a href="u">x<span hidden>y<a href="v">w</a>')).toBe('x (u)w (v)');
  });

  test("a label's words are one space apart however the content spaced or broke them", () => {
    expect(htmlToText('<a href="u">x&emsp;<b>y</b>\n<br>z <ul><li>one</li><li>two</li></ul></a>')).toBe('x y z - one - two (u)');
    expect(htmlToText('<a href="u"><pre>a  b\n c</pre></a>')).toBe('a b c (u)');
  });

  test('a hidden element that is never closed keeps its text, in a link too', () => {
    expect(htmlToText('<a href="u">x <span hidden>y')).toBe('x y (u)');
  });
});

describe('lists', () => {
  test('items are bulleted `- `, nested lists indented, the list set apart by blank lines', () => {
    const html = '<p>Intro</p><ul><li>One</li><li>Two<ul><li>Two a</li><li>Two b</li></ul></li><li>Three</li></ul><p>After</p>';
    expect(htmlToText(html)).toBe('Intro\n\n- One\n- Two\n  - Two a\n  - Two b\n- Three\n\nAfter');
  });

  test('ordered lists are numbered, from their start', () => {
    expect(htmlToText('<ol><li>First</li><li>Second</li></ol><ol start="7"><li>Seventh</li></ol>')).toBe('1. First\n2. Second\n\n7. Seventh');
  });

  test('a paragraph or a break inside an item stays within the item', () => {
    expect(htmlToText('<ul><li><p>Para</p></li><li>Line<br>more</li></ul>')).toBe('- Para\n- Line\n  more');
  });

  test('items whose closing tags are left out are still items', () => {
    expect(htmlToText('<ul><li>a<li>b</ul>')).toBe('- a\n- b');
  });
});

describe('tag names', () => {
  test('are read case-insensitively, short or long, known or not', () => {
    expect(htmlToText('<P>One<BR>two</P><Ul><LI>item</lI></uL><STYLE>p{}</Style><Custom-Element-Name>three</Custom-Element-Name><TaBlE><Tr><Td>four</TD></tR></TABLE>')).toBe(
      'One\ntwo\n\n- item\n\nthree\n\nfour',
    );
  });
});

describe('line structure', () => {
  test('paragraphs, headings and <br>', () => {
    expect(htmlToText('<h1>Title</h1><p>Line one<br>Line two<br/>Line three</p><h2>Sub</h2><p>Body</p>')).toBe(
      'Title\n\nLine one\nLine two\nLine three\n\nSub\n\nBody',
    );
  });

  test('source whitespace and newlines collapse to one space, as the reader sees them', () => {
    expect(htmlToText('<p>\n    Hello\n    world,\t how   are\n you?\n</p>')).toBe('Hello world, how are you?');
  });

  test('table cells on a row are separated, rows are paragraphs', () => {
    expect(htmlToText('<table><tr><td>A</td><td>B</td></tr><tr><td>C</td></tr></table>')).toBe('A B\n\nC');
  });

  test('spacer cells and &nbsp; runs leave no blank lines behind', () => {
    expect(htmlToText('<table><tr><td>&nbsp;</td></tr><tr><td>A</td></tr><tr><td>&nbsp;&nbsp;</td></tr><tr><td>B</td></tr></table>')).toBe('A\n\nB');
  });

  test('preformatted text keeps its spaces and lines', () => {
    expect(htmlToText('<pre>a  b\nc</pre>')).toBe('a  b\nc');
  });
});

describe('what is left out', () => {
  test('head, title, style, script and comments, in any case', () => {
    const html =
      '<HTML><HEAD><TITLE>T</TITLE><STYLE>p { color: red }</STYLE></HEAD><BODY>' +
      '<script>if (a < b) { document.write("<p>x</p>") }</script><!-- <p>comment</p> --><p>Shown</p></BODY></HTML>';
    expect(htmlToText(html)).toBe('Shown');
  });

  test('the preheader, however its class attribute is quoted', () => {
    expect(htmlToText('<span class="preheader">A</span><p>Body</p>')).toBe('Body');
    expect(htmlToText("<span class='preheader'>A</span><p>Body</p>")).toBe('Body');
    expect(htmlToText('<span class=preheader style="display:none">A</span><p>Body</p>')).toBe('Body');
    expect(htmlToText('<span class="x preheader">A <span>nested</span> still hidden</span><p>Body</p>')).toBe('Body');
  });

  test('elements hidden with display:none or the hidden attribute', () => {
    expect(htmlToText('<div style="DISPLAY: none; max-height:0">Mobile copy</div><p>Body</p><p hidden>Secret</p>')).toBe('Body');
  });

  test('images, including the tracking pixel', () => {
    expect(htmlToText('<p>Hi<img src="https://t.example/o.gif" width="1" height="1"></p>')).toBe('Hi');
  });

  test('Outlook-only conditional comments', () => {
    expect(htmlToText('<!--[if mso]><table><tr><td>Outlook</td></tr></table><![endif]--><p>All</p>')).toBe('All');
  });
});
