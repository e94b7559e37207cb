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
// not hidden (so a broken design loses no text). A link's end (`</a>`, or the next `<a>`) closes
// the elements opened inside it, as a browser does, so a hidden one opened in the link is forgotten
// there: a link is written out once, and nothing hidden is left in its label.
import { decodeEntities } from './html-entities';
import { attribute, hidesItself, scanHtml, type HtmlTag, type HtmlVisitor } from './html-scanner';
import { TextWriter, type Mark } from './text-writer';

// What each element does to the text, by name: one lookup per tag.
const roleBlock = 1; // stands apart by a blank line (paragraphs, headings, divs, tables, rows...)
const roleAnchor = 2;
const roleBreak = 4;
const roleItem = 8;
const roleList = 16;
const roleOrdered = 32;
const roleCell = 64;
const rolePre = 128;
const roleHead = 256;
const roles: ReadonlyMap<string, number> = new Map([
  ...['address', 'article', 'aside', 'blockquote', 'center', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'p', 'section', 'summary', 'table', 'tr'].map((name): [string, number] => [name, roleBlock]),
  ['a', roleAnchor],
  ['br', roleBreak],
  ['li', roleItem],
  ['ul', roleList],
  ['ol', roleList | roleOrdered],
  ['td', roleCell],
  ['th', roleCell],
  ['pre', rolePre],
  ['head', roleHead],
]);

/** A hidden element whose end tag has not come yet; what it writes is forgotten when it does. */
interface Hidden {
  name: string;
  /** How many elements of its name were open, itself included, counting from the outermost hidden one of that name. */
  depth: number;
  mark: Mark;
  link: { mark: Mark; href: string } | undefined;
  preformatted: number;
}

/** The plain-text part of a mail from its HTML. */
export function htmlToText(html: string): string {
  const text = textVisitor(html);
  scanHtml(html, text);
  return text.result();
}

/** A visitor for scanHtml that writes the text of `html`; `result()` once the scan is over. */
export function textVisitor(html: string): HtmlVisitor & { result(): string } {
  const out = new TextWriter();
  let link: { mark: Mark; href: string } | undefined;
  let preformatted = 0;
  // A hidden element is written like any other; when its end tag comes, what it wrote is forgotten,
  // so one that is never closed stays. End tags match the innermost open element of their name, so
  // only names with a hidden element open need counting, from that element on.
  const hidden: Hidden[] = [];
  const byName = new Map<string, { open: number; hidden: Hidden[] }>();
  let seenHead = false;
  /** Ends the open link; `closesInside`: its end tag (or the next `<a>`) also closes the hidden elements opened in it. */
  const endLink = (closesInside: boolean) => {
    if (!link) return;
    // Those are the hidden elements on top of the stack that were opened while this link was open.
    let outermost: Hidden | undefined;
    while (closesInside && hidden.length > 0 && hidden[hidden.length - 1]!.link === link) {
      const inner = hidden.pop()!;
      const counted = byName.get(inner.name)!;
      counted.hidden.pop();
      counted.open = inner.depth - 1;
      if (counted.hidden.length === 0) byName.delete(inner.name);
      outermost = inner;
    }
    if (outermost) {
      out.rewind(outermost.mark);
      preformatted = outermost.preformatted;
    }
    out.link(link.mark, link.href);
    link = undefined;
  };

  const opened = (tag: HtmlTag): void => {
    const { name } = tag;
    const role = roles.get(name) ?? 0;
    const headSeen = seenHead;
    if (role === roleHead) seenHead = true;
    // Before the new `<a>` is counted: what the old link closes was opened inside it, not this.
    if (role === roleAnchor) endLink(true);
    if (tag.hasContent) {
      let counted = byName.size > 0 ? byName.get(name) : undefined;
      if (counted) counted.open++;
      // Browsers ignore a second `<head>`, so only the first is the head.
      if ((role === roleHead && !headSeen) || hidesItself(tag)) {
        if (!counted) byName.set(name, (counted = { open: 1, hidden: [] }));
        const entry: Hidden = { name, depth: counted.open, mark: out.mark(), link, preformatted };
        hidden.push(entry);
        counted.hidden.push(entry);
      }
    }
    switch (role) {
      case 0:
        break;
      case roleBlock:
        out.block(true);
        break;
      case roleAnchor: {
        const href = attribute(tag, 'href');
        if (href !== undefined) link = { mark: out.mark(), href: decodeEntities(href).trim() };
        break;
      }
      case roleBreak:
        out.lineBreak();
        break;
      case roleItem:
        out.item();
        break;
      case roleList:
      case roleList | roleOrdered: {
        const start = role === roleList ? 1 : Number.parseInt(attribute(tag, 'start') ?? '', 10);
        out.openList(role !== roleList, Number.isSafeInteger(start) ? start : 1);
        break;
      }
      case roleCell:
        out.softSpace();
        break;
      case rolePre:
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
    switch (roles.get(name)) {
      case undefined:
        break;
      case roleBlock:
        out.block(true);
        break;
      case roleAnchor:
        endLink(true);
        break;
      case roleItem:
        out.block(false);
        break;
      case roleList:
      case roleList | roleOrdered:
        out.closeList();
        break;
      case roleCell:
        out.softSpace();
        break;
      case rolePre:
        if (preformatted > 0) preformatted--;
        out.block(true);
        break;
    }
  };

  return {
    text(start, end) {
      const text = decodeEntities(html.slice(start, end));
      if (preformatted > 0) out.preformatted(text);
      else out.text(text);
    },
    tag(tag) {
      if (tag.kind === 'open') opened(tag);
      else closed(tag);
    },
    result() {
      // Elements never closed stay (a broken design loses no text), hidden ones too.
      endLink(false);
      return out.toString();
    },
  };
}
