// The one HTML scanner the text part and the renderer share: HTML's tokenizer reduced to what they
// need (tags, attributes, raw-text elements, comments), in time linear in the input; and finding a
// design's body and preheader with it.

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
export const hasContent = (tag: HtmlTag) => !tag.selfClosing && !voidElements.has(tag.name);

function hasClass(value: string | undefined, name: string): boolean {
  if (value === undefined || value.length < name.length) return false;
  const lower = value.toLowerCase();
  return lower.includes(name) && lower.split(/[ \t\n\f\r]+/).includes(name);
}

const mentionsNone = /none/i;

export function hidesItself(tag: HtmlTag): boolean {
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
