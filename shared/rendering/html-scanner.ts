// The one HTML scanner the text part and the renderer share: HTML's tokenizer reduced to what they
// need (tags, attributes, raw-text elements, comments), in time linear in the input; and finding a
// design's body and preheader with it.
// Over 300 lines on purpose: the tokenizer is one state machine over one cursor, and split across
// files its states would have to share that cursor through an object on the hot path of every render.

export interface HtmlTag {
  kind: 'open' | 'close';
  /** Lower case. */
  name: string;
  /** Where the tag's `<` is, and just past its `>`. */
  start: number;
  end: number;
  /** `<x ... />`. */
  selfClosing: boolean;
  /** Whether the element has content and an end tag to match (void elements and `<x/>` have neither). */
  hasContent: boolean;
  /** Names (lower case) and values (as written, not decoded), alternately; none on end tags. */
  attributes: readonly string[];
}

type MutableTag = { -readonly [key in keyof HtmlTag]: HtmlTag[key] } & { rawText: boolean };

/** The value of a tag's attribute (the first, when the name is repeated), as written. */
export function attribute(tag: HtmlTag, name: string): string | undefined {
  const { attributes } = tag;
  for (let i = 0; i < attributes.length; i += 2) if (attributes[i] === name) return attributes[i + 1];
  return undefined;
}

export interface HtmlVisitor {
  /** A run of text, `html.slice(start, end)`, entities not decoded. Return true to stop. */
  text?(start: number, end: number): boolean | void;
  /** A tag, valid only during the call (the scanner reuses the object). Return true to stop. */
  tag(tag: HtmlTag): boolean | void;
  /** Whether tags of this (lower-case) name need their attributes; all do when left out. */
  wantsAttributes?(name: string): boolean;
}

/** Elements whose content is text up to their end tag, never markup; none of it is shown in the text part. */
const rawTextElements = new Set(['script', 'style', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);
/** Elements that never have content or an end tag. */
const voidElements = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const noAttributes: readonly string[] = [];

/** Names up to this many characters are looked up as a number (7 ASCII characters stay below 2^53). */
const maxKeyedName = 7;
/**
 * A letter (either case) as 1-26, a digit as 27-36, anything else -1: names of letters and digits
 * are numbers in base 37, so those of up to 5 characters (most of a dense design's: `a`, `td`,
 * `span`, `class`, `style`) are small integers, which a Map hashes without boxing a double.
 */
const keyDigit = (c: number) => (c >= 97 && c <= 122 ? c - 96 : c >= 65 && c <= 90 ? c - 64 : c >= 48 && c <= 57 ? c - 21 : -1);
const nameKey = (name: string) => [...name].reduce((key, char) => key * 37 + keyDigit(char.charCodeAt(0)), 0);
const byKey = <T>(names: readonly string[], value: (name: string) => T): ReadonlyMap<number, T> =>
  new Map(names.filter((name) => name.length <= maxKeyedName && /^[a-z0-9]+$/.test(name)).map((name) => [nameKey(name), value(name)]));

interface TagName {
  name: string;
  void: boolean;
  rawText: boolean;
}
const tagName = (name: string): TagName => ({ name, void: voidElements.has(name), rawText: rawTextElements.has(name) });
/** The tag names designs are made of, by their key: the same string each time, never a new one. */
const knownNames = byKey(
  [
    ...'a abbr address article aside b big blockquote body br caption center code col dd del details div dl dt em font footer form h1 h2 h3 h4 h5 h6 head header hr html i img ins label li link main meta nav ol p pre s section small span strike strong style sub summary sup table tbody td tfoot th thead title tr u ul'.split(' '),
    ...rawTextElements,
    ...voidElements,
  ],
  tagName,
);
/** The attribute names designs are made of, likewise. */
const knownAttributes = byKey(
  'align alt bgcolor border class color colspan content dir face height hidden href id lang name rel role rowspan size src start style target title type valign width xmlns'.split(' '),
  (name) => name,
);

const identity = (name: string) => name;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * The name from `from` to the first space, `/`, `>` (or `=`, for an attribute) at or after `from`,
 * lower-cased: a string from `known` when it is one, so that a dense design makes none. Its end is
 * left in `nameEnd`.
 */
let nameEnd = 0;
function readName<T>(html: string, from: number, known: ReadonlyMap<number, T>, stopAtEquals: boolean, make: (name: string) => T): T {
  const n = html.length;
  let i = from;
  let key = 0;
  for (; i < n; i++) {
    const c = html.charCodeAt(i);
    if (c === 32 || c === 47 || c === 62 || (c <= 13 && c >= 9 && c !== 11) || (c === 61 && stopAtEquals && i > from)) break;
    if (key >= 0) {
      const digit = i - from < maxKeyedName ? keyDigit(c) : -1;
      key = digit > 0 ? key * 37 + digit : -1;
    }
  }
  nameEnd = i;
  return (key > 0 ? known.get(key) : undefined) ?? make(html.slice(from, i).toLowerCase());
}

/**
 * Reads the tag whose name starts at `from` (`<` is at `start`) into `tag`; false when the input
 * ends inside it (a browser drops such a tag and everything after it). Quoted values may hold `>`.
 */
function readTag(html: string, start: number, from: number, kind: HtmlTag['kind'], wantsAttributes: HtmlVisitor['wantsAttributes'], tag: MutableTag): boolean {
  const n = html.length;
  const tagInfo = readName(html, from, knownNames, false, tagName);
  const { name } = tagInfo;
  let i = nameEnd;
  let c = html.charCodeAt(i);
  const keep = kind === 'open' && (wantsAttributes === undefined || wantsAttributes(name));
  let attributes: string[] | undefined;
  let selfClosing = false;
  for (;;) {
    while (i < n && (isSpace(c) || c === 47)) {
      selfClosing = c === 47;
      c = html.charCodeAt(++i);
    }
    if (i >= n) return false;
    if (c === 62) {
      tag.kind = kind;
      tag.name = name;
      tag.start = start;
      tag.end = i + 1;
      tag.selfClosing = selfClosing;
      tag.hasContent = !selfClosing && !tagInfo.void;
      tag.rawText = kind === 'open' && tagInfo.rawText;
      tag.attributes = attributes ?? noAttributes;
      return true;
    }
    selfClosing = false;
    let attributeName: string | undefined;
    if (keep) {
      attributeName = readName(html, i, knownAttributes, true, identity);
      i = nameEnd;
    } else {
      c = html.charCodeAt(++i);
      while (i < n && !isSpace(c) && c !== 47 && c !== 62 && c !== 61) c = html.charCodeAt(++i);
    }
    c = html.charCodeAt(i);
    while (i < n && isSpace(c)) c = html.charCodeAt(++i);
    let valueStart = i;
    let valueEnd = i;
    if (c === 61) {
      c = html.charCodeAt(++i);
      while (i < n && isSpace(c)) c = html.charCodeAt(++i);
      if (i >= n) return false;
      if (c === 34 || c === 39) {
        const close = html.indexOf(c === 34 ? '"' : "'", i + 1);
        if (close === -1) return false;
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
    if (attributeName !== undefined) (attributes ??= []).push(attributeName, html.slice(valueStart, valueEnd));
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
 * Where a scan that was not stopped ended: in text (or right after a tag), inside a comment or a
 * raw-text element that is never closed, or inside a tag or other markup that is never closed
 * (what follows the input would end it).
 */
export type ScanEnd = 'in text' | 'in comment or raw text' | 'in markup' | 'stopped';

const newTag = (): MutableTag => ({ kind: 'open', name: '', start: 0, end: 0, selfClosing: false, hasContent: false, rawText: false, attributes: noAttributes });

/**
 * The start tag `html` holds whole (from its `<` to its `>`, as the scanner reads it; a tag this
 * code wrote, such as a link rewritten by click-tracking.ts), in a new object; undefined when `html`
 * is no such tag.
 */
export function parseStartTag(html: string): HtmlTag | undefined {
  const tag = newTag();
  return html.charCodeAt(0) === 60 && isLetter(html.charCodeAt(1)) && readTag(html, 0, 1, 'open', undefined, tag) && tag.end === html.length ? tag : undefined;
}

/**
 * Scans `html` once, front to back, handing each text run and tag to `visitor` until it returns
 * true. Comments, doctypes and processing instructions are skipped (an unclosed comment runs to the
 * end, as in browsers), and so is the content of raw-text elements (`<script>`, `<style>`, `<title>`...).
 */
export function scanHtml(html: string, visitor: HtmlVisitor): ScanEnd {
  const n = html.length;
  const { wantsAttributes } = visitor;
  // One tag object for the whole scan: a visitor reads it during its call and keeps none of it.
  const tag: MutableTag = newTag();
  let textStart = 0;
  let i = 0;
  while (i < n) {
    let lt = html.indexOf('<', i);
    if (lt === -1) break;
    let next = html.charCodeAt(lt + 1);
    // A run of `<` is text, read here rather than searched for one `<` at a time.
    while (next === 60) next = html.charCodeAt(++lt + 1);
    let resume: number;
    if (isLetter(next) || (next === 47 && isLetter(html.charCodeAt(lt + 2)))) {
      if (lt > textStart && visitor.text !== undefined && visitor.text(textStart, lt) === true) return 'stopped';
      const close = next === 47;
      if (!readTag(html, lt, close ? lt + 2 : lt + 1, close ? 'close' : 'open', wantsAttributes, tag)) return 'in markup';
      if (visitor.tag(tag) === true) return 'stopped';
      if (tag.rawText) {
        resume = rawTextEnd(html, tag.name, tag.end);
        if (resume === n) return 'in comment or raw text';
      } else resume = tag.end;
    } else if (next === 33 || next === 63 || next === 47) {
      // `<!--...-->`; `<!DOCTYPE>`, `<![CDATA[...]>`, `<?xml?>` and `</ ...>` up to the next `>`.
      if (lt > textStart && visitor.text !== undefined && visitor.text(textStart, lt) === true) return 'stopped';
      if (html.startsWith('<!--', lt)) {
        if (html.startsWith('>', lt + 4)) resume = lt + 5;
        else if (html.startsWith('->', lt + 4)) resume = lt + 6;
        else {
          const end = html.indexOf('-->', lt + 4);
          if (end === -1) return 'in comment or raw text';
          resume = end + 3;
        }
      } else {
        const end = html.indexOf('>', lt + 2);
        if (end === -1) return 'in markup';
        resume = end + 1;
      }
    } else {
      // A `<` that starts no tag is text.
      i = lt + 1;
      continue;
    }
    textStart = i = resume;
  }
  if (n > textStart && visitor.text !== undefined && visitor.text(textStart, n) === true) return 'stopped';
  return 'in text';
}

/** Whether `name` (lower case) is in the class list `value`, compared as `toLowerCase()` would, with no string made. */
function hasClass(value: string | undefined, name: string): boolean {
  if (value === undefined || value.length < name.length) return false;
  const n = value.length;
  const length = name.length;
  for (let i = 0; i < n; ) {
    let c = value.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    let same = true;
    for (; i < n && !isSpace((c = value.charCodeAt(i))); i++) {
      // Besides `A`-`Z`, only U+212A (the Kelvin sign) lower-cases to one ASCII character, `k`,
      // which the one name asked for, `preheader`, does not hold.
      if (same) same = i - start < length && (c >= 65 && c <= 90 ? c + 32 : c) === name.charCodeAt(i - start);
    }
    if (same && i - start === length) return true;
  }
  return false;
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

/** Finds a design's landmarks from the tags of a scan, in order; `tag` is true once it has all. */
export class LandmarkFinder {
  readonly found: DesignLandmarks = {};
  private contentStart = -1;
  private depth = 0;

  /** `shift`: how far the tag has moved in the HTML the landmarks are for (links rewritten before it, say). */
  tag(tag: HtmlTag, shift = 0): boolean {
    const { found } = this;
    if (found.bodyStart === undefined && tag.kind === 'open' && tag.name === 'body') found.bodyStart = tag.end + shift;
    if (found.preheader) return true;
    if (this.contentStart === -1) {
      if (isPreheaderTag(tag)) this.contentStart = tag.end + shift;
      return false;
    }
    if (tag.name !== 'span' || (tag.kind === 'open' && tag.selfClosing)) return false;
    if (tag.kind === 'open') this.depth++;
    else if (this.depth > 0) this.depth--;
    else {
      found.preheader = { start: this.contentStart, end: tag.start + shift };
      return true;
    }
    return false;
  }
}

/** Where a design's body starts and its preheader is, in one scan that stops at the preheader's end. */
export function findLandmarks(html: string): DesignLandmarks {
  const finder = new LandmarkFinder();
  scanHtml(html, { wantsAttributes: (name) => name === 'span', tag: (tag) => finder.tag(tag) });
  return finder.found;
}
