// The plain-text part of a mail, derived from its HTML: readable lines, links written out, and
// nothing a reader cannot see (head, title, styles, scripts, comments, the hidden preheader and
// other hidden elements, images such as the tracking pixel). Also the one HTML scanner the renderer
// uses to find a design's `<body>` and preheader.
//
// Everything here takes time linear in the HTML's length, whatever the HTML holds: a tenant's
// design (up to 350 KB) is rendered once per recipient, so one design that made a backtracking
// regular expression go quadratic would stall every tenant's delivery. The scanner reads each
// character a bounded number of times (`indexOf` forward from where it stands, never back), and
// the few regular expressions left cannot backtrack more than a constant per character.
//
// The text format:
//   - a link is `label (href)`; the bare href when the label is empty (an image) or is the href
//     itself; the bare label when the href is empty or a `#fragment`;
//   - `<ul>` items start with `- `, `<ol>` items with `1. `, `2. `... (from `start`); a nested list
//     is indented under its item's text (at most 12 columns deep); a list stands apart from the
//     paragraphs around it by one blank line, its items on consecutive lines;
//   - paragraphs, headings, divs, tables and table rows (and the other block elements) are
//     separated by one blank line, `<br>` ends a line, cells on one row are separated by a space;
//   - whitespace in the source, newlines and `&nbsp;` included, is one space, as a reader sees it
//     (`<pre>` keeps its spaces and lines);
//   - character references are decoded: numeric ones as browsers read them, named ones from the
//     table below; an unknown name, or a name without its `;`, stays as written.
// Hidden means: any element whose class list holds `preheader`, or with `display:none` in its
// style, or the `hidden` attribute, with everything inside it; an element that is never closed is
// not hidden (so a broken design loses no text).

/**
 * Named character references: HTML 4.01's 252 (Latin-1, symbols and Greek, specials; with their
 * HTML5 values), `apos`, the upper-case aliases HTML5 keeps (`AMP`, `COPY`...), the ASCII
 * punctuation names (`&commat;`...) and a few HTML5 symbols seen in mail (`&check;`, `&starf;`...).
 * That covers what mail editors and tenants write; HTML5's other ~1,900 names (mostly mathematics)
 * stay as written. Node has no table of its own, and the full one would add some 30 KB to every
 * sending bundle.
 */
const namedReferences: ReadonlyMap<string, string> = (() => {
  const table = new Map<string, string>();
  const run = (first: number, names: string) => names.split(' ').forEach((name, i) => table.set(name, String.fromCodePoint(first + i)));
  // Latin-1, U+00A0 to U+00FF in order.
  run(
    0xa0,
    'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest ' +
      'Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig ' +
      'agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml',
  );
  // Greek, U+0391 to U+03A9 (no capital final sigma at U+03A2) and U+03B1 to U+03C9.
  run(0x391, 'Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho');
  run(0x3a3, 'Sigma Tau Upsilon Phi Chi Psi Omega');
  run(0x3b1, 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega');
  const single =
    'quot:22 amp:26 lt:3c gt:3e apos:27 OElig:152 oelig:153 Scaron:160 scaron:161 Yuml:178 fnof:192 circ:2c6 tilde:2dc thetasym:3d1 upsih:3d2 piv:3d6 ' +
    'ensp:2002 emsp:2003 thinsp:2009 zwnj:200c zwj:200d lrm:200e rlm:200f ndash:2013 mdash:2014 lsquo:2018 rsquo:2019 sbquo:201a ldquo:201c rdquo:201d bdquo:201e ' +
    'dagger:2020 Dagger:2021 bull:2022 hellip:2026 permil:2030 prime:2032 Prime:2033 lsaquo:2039 rsaquo:203a oline:203e frasl:2044 euro:20ac ' +
    'image:2111 weierp:2118 real:211c trade:2122 alefsym:2135 larr:2190 uarr:2191 rarr:2192 darr:2193 harr:2194 crarr:21b5 lArr:21d0 uArr:21d1 rArr:21d2 dArr:21d3 hArr:21d4 ' +
    'forall:2200 part:2202 exist:2203 empty:2205 nabla:2207 isin:2208 notin:2209 ni:220b prod:220f sum:2211 minus:2212 lowast:2217 radic:221a prop:221d infin:221e ang:2220 ' +
    'and:2227 or:2228 cap:2229 cup:222a int:222b there4:2234 sim:223c cong:2245 asymp:2248 ne:2260 equiv:2261 le:2264 ge:2265 sub:2282 sup:2283 nsub:2284 sube:2286 supe:2287 ' +
    'oplus:2295 otimes:2297 perp:22a5 sdot:22c5 lceil:2308 rceil:2309 lfloor:230a rfloor:230b lang:27e8 rang:27e9 loz:25ca spades:2660 clubs:2663 hearts:2665 diams:2666 ' +
    'AMP:26 LT:3c GT:3e QUOT:22 COPY:a9 REG:ae bullet:2022 check:2713 cross:2717 star:2606 starf:2605 phone:260e hyphen:2010 dash:2010 ' +
    'Tab:9 NewLine:a excl:21 num:23 dollar:24 percnt:25 lpar:28 rpar:29 ast:2a plus:2b comma:2c period:2e sol:2f colon:3a semi:3b equals:3d quest:3f commat:40 ' +
    'lsqb:5b bsol:5c rsqb:5d Hat:5e lowbar:5f grave:60 lcub:7b verbar:7c vert:7c rcub:7d';
  for (const entry of single.split(' ')) {
    const [name, hex] = entry.split(':') as [string, string];
    table.set(name, String.fromCodePoint(parseInt(hex, 16)));
  }
  return table;
})();

/** What browsers make of `&#128;` to `&#159;`: the Windows-1252 characters (the five unassigned stay). */
const windows1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function fromCodePoint(code: number): string {
  if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
  if (code >= 0x80 && code <= 0x9f) return windows1252[code - 0x80]!;
  return String.fromCodePoint(code);
}

// Each alternative is anchored on `&` and either runs to the end of its digits (the `;` is optional
// for numbers, as in browsers) or gives up within 32 characters: no backtracking beyond that.
const reference = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]{0,31});)/g;

/** Character references decoded (see the format above); anything else left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(reference, (whole, hex: string | undefined, decimal: string | undefined, name: string | undefined) => {
    if (name !== undefined) return namedReferences.get(name) ?? whole;
    return fromCodePoint(hex !== undefined ? parseInt(hex, 16) : parseInt(decimal!, 10));
  });
}

// ---------------------------------------------------------------------------------------------
// The scanner: HTML's tokenizer, reduced to what the text and the renderer need.

export interface HtmlTag {
  kind: 'open' | 'close';
  /** Lower case. */
  name: string;
  /** Where the tag's `<` is, and just past its `>`. */
  start: number;
  end: number;
  /** `<x ... />`. */
  selfClosing: boolean;
  /** Names (lower case) and values (as written, not decoded), alternately; none on end tags. */
  attributes: readonly string[];
}

/** The value of a tag's attribute (the first, when the name is repeated), as written. */
export function attribute(tag: HtmlTag, name: string): string | undefined {
  const { attributes } = tag;
  for (let i = 0; i < attributes.length; i += 2) if (attributes[i] === name) return attributes[i + 1];
  return undefined;
}

export interface HtmlVisitor {
  /** A run of text, `html.slice(start, end)`, entities not decoded. Return true to stop. */
  text?(start: number, end: number): boolean | void;
  /** A tag. Return true to stop. */
  tag(tag: HtmlTag): boolean | void;
  /** Whether tags of this (lower-case) name need their attributes; all do when left out. */
  wantsAttributes?(name: string): boolean;
}

/** Elements whose content is text up to their end tag, never markup; none of it is shown in the text part. */
const rawTextElements = new Set(['script', 'style', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);
/** Elements that never have content or an end tag. */
const voidElements = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const noAttributes: readonly string[] = [];

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Reads the tag whose name starts at `from` (`<` is at `start`); undefined when the input ends
 * inside it (a browser drops such a tag and everything after it). Quoted values may hold `>`.
 */
function readTag(html: string, start: number, from: number, kind: HtmlTag['kind'], wantsAttributes: HtmlVisitor['wantsAttributes']): HtmlTag | undefined {
  const n = html.length;
  let i = from;
  let c = html.charCodeAt(i);
  while (i < n && !isSpace(c) && c !== 47 && c !== 62) c = html.charCodeAt(++i);
  const name = html.slice(from, i).toLowerCase();
  const keep = kind === 'open' && (wantsAttributes === undefined || wantsAttributes(name));
  let attributes: string[] | undefined;
  let selfClosing = false;
  for (;;) {
    while (i < n && (isSpace(c) || c === 47)) {
      selfClosing = c === 47;
      c = html.charCodeAt(++i);
    }
    if (i >= n) return undefined;
    if (c === 62) return { kind, name, start, end: i + 1, selfClosing, attributes: attributes ?? noAttributes };
    selfClosing = false;
    const nameStart = i;
    c = html.charCodeAt(++i);
    while (i < n && !isSpace(c) && c !== 47 && c !== 62 && c !== 61) c = html.charCodeAt(++i);
    const nameEnd = i;
    while (i < n && isSpace(c)) c = html.charCodeAt(++i);
    let valueStart = i;
    let valueEnd = i;
    if (c === 61) {
      c = html.charCodeAt(++i);
      while (i < n && isSpace(c)) c = html.charCodeAt(++i);
      if (i >= n) return undefined;
      if (c === 34 || c === 39) {
        const close = html.indexOf(c === 34 ? '"' : "'", i + 1);
        if (close === -1) return undefined;
        valueStart = i + 1;
        valueEnd = close;
        i = close + 1;
        c = html.charCodeAt(i);
      } else {
        valueStart = i;
        while (i < n && !isSpace(c) && c !== 62) c = html.charCodeAt(++i);
        valueEnd = i;
      }
    }
    if (keep) (attributes ??= []).push(html.slice(nameStart, nameEnd).toLowerCase(), html.slice(valueStart, valueEnd));
  }
}

/** Where the end tag of a raw-text element starts (`</name` followed by space, `/` or `>`), or the input's end. */
function rawTextEnd(html: string, name: string, from: number): number {
  for (let i = from; ; ) {
    const at = html.indexOf('</', i);
    if (at === -1) return html.length;
    const after = at + 2 + name.length;
    if (html.slice(at + 2, after).toLowerCase() === name) {
      const c = html.charCodeAt(after);
      if (after >= html.length || isSpace(c) || c === 47 || c === 62) return at;
    }
    i = at + 2;
  }
}

/**
 * Scans `html` once, front to back, handing each text run and tag to `visitor` until it returns
 * true. Comments, doctypes and processing instructions are skipped (an unclosed comment runs to the
 * end, as in browsers), and so is the content of raw-text elements (`<script>`, `<style>`, `<title>`...).
 */
export function scanHtml(html: string, visitor: HtmlVisitor): void {
  const n = html.length;
  let textStart = 0;
  let i = 0;
  const text = (end: number) => end > textStart && visitor.text !== undefined && visitor.text(textStart, end) === true;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const next = html.charCodeAt(lt + 1);
    let resume: number;
    if (isLetter(next) || (next === 47 && isLetter(html.charCodeAt(lt + 2)))) {
      if (text(lt)) return;
      const tag = readTag(html, lt, next === 47 ? lt + 2 : lt + 1, next === 47 ? 'close' : 'open', visitor.wantsAttributes);
      if (!tag || visitor.tag(tag) === true) return;
      resume = tag.kind === 'open' && rawTextElements.has(tag.name) ? rawTextEnd(html, tag.name, tag.end) : tag.end;
    } else if (next === 33 || next === 63 || next === 47) {
      // `<!--...-->`; `<!DOCTYPE>`, `<![CDATA[...]>`, `<?xml?>` and `</ ...>` up to the next `>`.
      if (text(lt)) return;
      if (html.startsWith('<!--', lt)) {
        if (html.startsWith('>', lt + 4)) resume = lt + 5;
        else if (html.startsWith('->', lt + 4)) resume = lt + 6;
        else {
          const close = html.indexOf('-->', lt + 4);
          resume = close === -1 ? n : close + 3;
        }
      } else {
        const close = html.indexOf('>', lt + 2);
        resume = close === -1 ? n : close + 1;
      }
    } else {
      // A `<` that starts no tag is text.
      i = lt + 1;
      continue;
    }
    textStart = i = resume;
  }
  text(n);
}

/** Whether an element has content and an end tag to match (void elements and `<x/>` have neither). */
const hasContent = (tag: HtmlTag) => !tag.selfClosing && !voidElements.has(tag.name);

function hasClass(value: string | undefined, name: string): boolean {
  if (value === undefined || value.length < name.length) return false;
  const lower = value.toLowerCase();
  return lower.includes(name) && lower.split(/[ \t\n\f\r]+/).includes(name);
}

const mentionsNone = /none/i;

function hidesItself(tag: HtmlTag): boolean {
  if (tag.attributes.length === 0) return false;
  if (attribute(tag, 'hidden') !== undefined || hasClass(attribute(tag, 'class'), 'preheader')) return true;
  const style = attribute(tag, 'style');
  if (style === undefined || !mentionsNone.test(style)) return false;
  return style.split(';').some((declaration) => {
    const colon = declaration.indexOf(':');
    return colon !== -1 && declaration.slice(0, colon).trim().toLowerCase() === 'display' && /^none\b/i.test(declaration.slice(colon + 1).trim());
  });
}

/** Whether the tag opens the design's preheader: a `<span>` whose class list holds `preheader`. */
export function isPreheaderTag(tag: HtmlTag): boolean {
  return tag.kind === 'open' && tag.name === 'span' && !tag.selfClosing && hasClass(attribute(tag, 'class'), 'preheader');
}

export interface DesignLandmarks {
  /** Just past the first `<body ...>` tag, if any. */
  bodyStart?: number;
  /** The content of the first preheader span, if it is closed: from past its start tag to its end tag. */
  preheader?: { start: number; end: number };
}

/** Where a design's body starts and its preheader is, in one scan that stops at the preheader's end. */
export function findLandmarks(html: string): DesignLandmarks {
  const found: DesignLandmarks = {};
  let contentStart = -1;
  let depth = 0;
  scanHtml(html, {
    wantsAttributes: (name) => name === 'span',
    tag(tag) {
      if (found.bodyStart === undefined && tag.kind === 'open' && tag.name === 'body') found.bodyStart = tag.end;
      if (contentStart === -1) {
        if (isPreheaderTag(tag)) contentStart = tag.end;
        return false;
      }
      if (tag.name !== 'span' || (tag.kind === 'open' && tag.selfClosing)) return false;
      if (tag.kind === 'open') depth++;
      else if (depth > 0) depth--;
      else {
        found.preheader = { start: contentStart, end: tag.start };
        return true;
      }
      return false;
    },
  });
  return found;
}

// ---------------------------------------------------------------------------------------------
// The text.

/** Whitespace as a reader sees it: one space. `&nbsp;` too (spacer cells and padding). */
const isCollapsible = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 0xa0;
/** Indentation stops growing here, so deeply nested lists cannot make the text quadratic. */
const maxIndent = 12;
const spaces = Array.from({ length: maxIndent + 1 }, (_, width) => ' '.repeat(width));
const bullets = spaces.map((indent) => `${indent}- `);

const paragraphElements = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'p', 'section', 'summary', 'table', 'tr',
]);

interface List {
  ordered: boolean;
  next: number;
  /** Columns of indentation, at most `maxIndent`. */
  indent: number;
  /** The current item's marker (`- `, `3. `), whose width continuation lines are indented by. */
  marker: string;
  /** The list this one is nested in. */
  parent: List | undefined;
}

/** The writer's state at one point, to come back to: a link's start, a hidden element's start. */
interface Mark {
  parts: number;
  breaks: number;
  space: boolean;
  lineOpen: boolean;
  bullet: string | undefined;
  list: List | undefined;
  next: number;
  marker: string;
}

/** Lines of text built word by word; breaks and spaces are owed until the next word, so none trail. */
class TextWriter {
  private readonly parts: string[] = [];
  /** Newlines owed before the next word: 1 ends the line, 2 leaves a blank line. */
  private breaks = 0;
  private space = false;
  private lineOpen = false;
  /** The marker of an item whose first word is still to come. */
  private bullet: string | undefined;
  /** The innermost open list. */
  private list: List | undefined;

  word(word: string): void {
    let lead = '';
    if (this.breaks > 0) {
      if (this.parts.length > 0) lead = this.breaks === 1 ? '\n' : '\n\n';
      this.breaks = 0;
      this.lineOpen = false;
    }
    if (!this.lineOpen) {
      if (this.list || this.bullet !== undefined) lead += this.linePrefix();
      this.lineOpen = true;
    } else if (this.space) lead = ' ';
    this.space = false;
    this.parts.push(lead === '' ? word : lead + word);
  }

  /** Text as a browser lays it out: each run of whitespace one space. */
  text(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (isCollapsible(text.charCodeAt(i))) {
        this.softSpace();
        while (++i < n && isCollapsible(text.charCodeAt(i)));
        continue;
      }
      const start = i;
      while (++i < n && !isCollapsible(text.charCodeAt(i)));
      this.word(start === 0 && i === n ? text : text.slice(start, i));
    }
  }

  preformatted(text: string): void {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (i > 0) this.lineBreak();
      const line = lines[i]!.trimEnd();
      if (line !== '') this.word(line);
    }
  }

  softSpace(): void {
    if (this.lineOpen && this.breaks === 0) this.space = true;
  }

  lineBreak(): void {
    if (this.parts.length === 0) return;
    this.breaks = Math.min(this.breaks + 1, 2);
    this.space = false;
  }

  block(blank: boolean): void {
    if (this.parts.length === 0) return;
    const wanted = blank && this.list === undefined ? 2 : 1;
    if (this.breaks < wanted) this.breaks = wanted;
    this.space = false;
  }

  openList(ordered: boolean, start: number): void {
    this.block(true);
    const parent = this.list;
    const indent = parent ? Math.min(parent.indent + parent.marker.length, maxIndent) : 0;
    this.list = { ordered, next: start, indent, marker: '', parent };
  }

  closeList(): void {
    if (!this.list) return;
    this.list = this.list.parent;
    this.bullet = undefined;
    this.block(true);
  }

  item(): void {
    this.block(false);
    const list = this.list;
    const marker = list?.ordered ? `${list.next++}. ` : '- ';
    if (list) list.marker = marker;
    this.bullet = marker;
  }

  private linePrefix(): string {
    const list = this.list;
    const indent = list?.indent ?? 0;
    const bullet = this.bullet;
    this.bullet = undefined;
    if (bullet === '- ') return bullets[indent]!;
    if (bullet !== undefined) return `${spaces[indent]}${bullet}`;
    return list ? spaces[Math.min(indent + list.marker.length, maxIndent)]! : '';
  }

  mark(): Mark {
    const { list } = this;
    return {
      parts: this.parts.length,
      breaks: this.breaks,
      space: this.space,
      lineOpen: this.lineOpen,
      bullet: this.bullet,
      list,
      next: list?.next ?? 0,
      marker: list?.marker ?? '',
    };
  }

  /** Forgets everything written since `mark`. */
  rewind(mark: Mark): void {
    this.parts.length = mark.parts;
    ({ breaks: this.breaks, space: this.space, lineOpen: this.lineOpen, bullet: this.bullet, list: this.list } = mark);
    if (mark.list) {
      mark.list.next = mark.next;
      mark.list.marker = mark.marker;
    }
  }

  /** Rewrites what was written since `mark` (a link's content) as `label (href)`. */
  link(mark: Mark, href: string): void {
    const trailingBreaks = this.breaks;
    const trailingSpace = this.space;
    const written = this.parts.length === mark.parts ? '' : this.parts.slice(mark.parts).join('');
    this.rewind(mark);
    const label = written.trim() === '' ? '' : written.split(/\s+/).filter(Boolean).join(' ');
    if (isCollapsible(written.charCodeAt(0))) this.softSpace();
    if (href === '' || href.startsWith('#')) this.text(label);
    else if (label === '' || label === href) this.word(href);
    else {
      this.text(label);
      this.softSpace();
      this.word(`(${href})`);
    }
    if (trailingBreaks > 0) this.breaks = Math.max(this.breaks, trailingBreaks);
    else if (trailingSpace) this.softSpace();
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** A hidden element whose end tag has not come yet; what it writes is forgotten when it does. */
interface Hidden {
  name: string;
  /** How many elements of its name were open, itself included, counting from the outermost hidden one of that name. */
  depth: number;
  mark: Mark;
  link: { mark: Mark; href: string } | undefined;
  preformatted: number;
}

export function htmlToText(html: string): string {
  const out = new TextWriter();
  let link: { mark: Mark; href: string } | undefined;
  let preformatted = 0;
  // A hidden element is written like any other; when its end tag comes, what it wrote is forgotten,
  // so one that is never closed stays. End tags match the innermost open element of their name, so
  // only names with a hidden element open need counting, from that element on.
  const hidden: Hidden[] = [];
  const byName = new Map<string, { open: number; hidden: Hidden[] }>();
  let seenHead = false;
  const endLink = () => {
    if (link) out.link(link.mark, link.href);
    link = undefined;
  };

  const opened = (tag: HtmlTag): void => {
    const { name } = tag;
    const headSeen = seenHead;
    if (name === 'head') seenHead = true;
    if (hasContent(tag)) {
      let counted = byName.size > 0 ? byName.get(name) : undefined;
      if (counted) counted.open++;
      // Browsers ignore a second `<head>`, so only the first is the head.
      if ((name === 'head' && !headSeen) || hidesItself(tag)) {
        if (!counted) byName.set(name, (counted = { open: 1, hidden: [] }));
        const entry: Hidden = { name, depth: counted.open, mark: out.mark(), link, preformatted };
        hidden.push(entry);
        counted.hidden.push(entry);
      }
    }
    if (paragraphElements.has(name)) out.block(true);
    switch (name) {
      case 'a': {
        endLink();
        const href = attribute(tag, 'href');
        if (href !== undefined) link = { mark: out.mark(), href: decodeEntities(href).trim() };
        break;
      }
      case 'br':
        out.lineBreak();
        break;
      case 'li':
        out.item();
        break;
      case 'ul':
      case 'ol': {
        const start = Number.parseInt(attribute(tag, 'start') ?? '', 10);
        out.openList(name === 'ol', name === 'ol' && Number.isSafeInteger(start) ? start : 1);
        break;
      }
      case 'td':
      case 'th':
        out.softSpace();
        break;
      case 'pre':
        out.block(true);
        preformatted++;
        break;
    }
  };

  const closed = (tag: HtmlTag): void => {
    const { name } = tag;
    const counted = byName.size > 0 ? byName.get(name) : undefined;
    if (counted) {
      const entry = counted.hidden[counted.hidden.length - 1]!;
      if (entry.depth === counted.open--) {
        // The hidden element ends: forget what it wrote, and the hidden elements still open inside it.
        for (let inner = hidden.pop()!; inner !== entry; inner = hidden.pop()!) {
          const list = byName.get(inner.name)!;
          list.hidden.pop();
          if (list.hidden.length === 0) byName.delete(inner.name);
        }
        counted.hidden.pop();
        if (counted.hidden.length === 0) byName.delete(name);
        out.rewind(entry.mark);
        link = entry.link;
        preformatted = entry.preformatted;
        return;
      }
    }
    if (paragraphElements.has(name)) out.block(true);
    switch (name) {
      case 'a':
        endLink();
        break;
      case 'li':
        out.block(false);
        break;
      case 'ul':
      case 'ol':
        out.closeList();
        break;
      case 'td':
      case 'th':
        out.softSpace();
        break;
      case 'pre':
        if (preformatted > 0) preformatted--;
        out.block(true);
        break;
    }
  };

  scanHtml(html, {
    text(start, end) {
      const text = decodeEntities(html.slice(start, end));
      if (preformatted > 0) out.preformatted(text);
      else out.text(text);
    },
    tag(tag) {
      if (tag.kind === 'open') opened(tag);
      else closed(tag);
    },
  });
  endLink();
  return out.toString();
}
