// The plain-text part of a mail, derived from its HTML: readable lines, links written out, and
// nothing a reader cannot see (head, title, styles, scripts, comments, the hidden preheader and
// other hidden elements, images such as the tracking pixel), read with the scanner of
// html-scanner.ts, which the renderer also uses to find a design's `<body>` and preheader.
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
//     table in html-entities.ts; an unknown name, or a name without its `;`, stays as written.
// Hidden means: any element whose class list holds `preheader`, or with `display:none` in its
// style, or the `hidden` attribute, with everything inside it; an element that is never closed is
// not hidden (so a broken design loses no text).
import { decodeEntities } from './html-entities';
import { attribute, hasContent, hidesItself, scanHtml, type HtmlTag } from './html-scanner';

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
