// Links in designs that cannot run code. A design is saved only without `javascript:`, `data:` and
// `vbscript:` links (shared/rendering/design-link-rule.ts); and when a mail is rendered, an `href` filled
// from placeholders (`href="((website))"`, from contact data anyone may have typed into a form) must
// come out as an http(s), mailto or tel URL, or a relative one: anything else becomes `#`.
import { decodeEntities } from './html-entities';
import { scanHtml } from './html-scanner';

/** Schemes that run code or smuggle content when a link is followed; no design may link to them. */
export const refusedLinkSchemes = ['javascript', 'data', 'vbscript'] as const;
const refused = new Set<string>(refusedLinkSchemes);
/** Schemes a link filled from contact data may have. */
const allowedFilledSchemes = new Set(['http', 'https', 'mailto', 'tel']);
const schemePattern = /^([a-z][a-z0-9+.-]*):/i;
/** What a browser drops from a URL before reading its scheme (tab, newline; controls and spaces at the ends); all of them, to be safe. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is dropped
const ignoredInUrl = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]+/g;

/** The lower-case scheme of an attribute value as written (entities decoded, as a browser reads it), or undefined for a relative URL. */
export function linkScheme(valueAsWritten: string): string | undefined {
  const url = decodeEntities(valueAsWritten).replace(ignoredInUrl, '');
  return schemePattern.exec(url)?.[1]?.toLowerCase();
}

/** Whether a link (as written) uses a scheme no design may link to. */
export function isRefusedLink(valueAsWritten: string): boolean {
  const scheme = linkScheme(valueAsWritten);
  return scheme !== undefined && refused.has(scheme);
}

/** Whether a link filled from placeholders may stay: http(s), mailto, tel, or relative. */
export function isSafeFilledLink(valueAsWritten: string): boolean {
  const scheme = linkScheme(valueAsWritten);
  return scheme === undefined || allowedFilledSchemes.has(scheme);
}

/** The part of a tag to rewrite: an `href` value that holds a placeholder or a refused scheme. */
interface CheckedHref {
  /** The tag, to be written again with the href checked. */
  start: number;
  end: number;
  name: string;
  selfClosing: boolean;
  attributes: readonly string[];
}

const placeholderMark = '((';

function hrefsToCheck(html: string): CheckedHref[] {
  const found: CheckedHref[] = [];
  if (!/href/i.test(html)) return found;
  scanHtml(html, {
    tag(tag) {
      if (tag.kind !== 'open') return;
      for (let i = 0; i < tag.attributes.length; i += 2) {
        if (tag.attributes[i] !== 'href') continue;
        const value = tag.attributes[i + 1] as string;
        if (value.includes(placeholderMark) || isRefusedLink(value)) {
          found.push({ start: tag.start, end: tag.end, name: tag.name, selfClosing: tag.selfClosing, attributes: [...tag.attributes] });
          return;
        }
      }
    },
  });
  return found;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;

/**
 * Whether an `href` the scan would find may hold a placeholder or a refused scheme: each `href` in
 * the text, wherever it stands, is read as the scanner reads an attribute there (spaces, `=`,
 * spaces, then a quoted value up to its quote or a bare one up to a space or `>`), so that every
 * href of every tag is looked at, and more. One that starts inside the value of one before it
 * answers yes (the scan tells), so each character is read a bounded number of times. `safeAt`:
 * where an href known to be safe starts (the footer's, filled with our own page).
 */
function mayHaveHrefsToCheck(html: string, safeAt: number): boolean {
  const n = html.length;
  const found = /href/gi;
  let readTo = 0;
  for (let match = found.exec(html); match; match = found.exec(html)) {
    if (match.index < readTo) return true;
    if (match.index === safeAt) continue;
    let i = match.index + 4;
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    if (html.charCodeAt(i) !== 61) continue;
    i++;
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    const quote = html.charCodeAt(i);
    let end: number;
    if (quote === 34 || quote === 39) {
      // A value whose quote never closes ends no tag: the scan finds no attribute there.
      end = html.indexOf(quote === 34 ? '"' : "'", ++i);
      if (end === -1) continue;
    } else for (end = i; end < n && !isSpace(html.charCodeAt(end)) && html.charCodeAt(end) !== 62; end++);
    const value = html.slice(i, end);
    if (value.includes(placeholderMark) || isRefusedLink(value)) return true;
    readTo = end;
  }
  return false;
}

// A send renders one design for every recipient: the design's scan is kept for the next recipient.
let lastDesign: string | undefined;
let lastSafeAt = -1;
let lastHrefs: CheckedHref[] = [];

function hrefsOf(design: string, safeAt: number): CheckedHref[] {
  if (safeAt !== lastSafeAt || design !== lastDesign) {
    lastHrefs = mayHaveHrefsToCheck(design, safeAt) ? hrefsToCheck(design) : [];
    lastDesign = design;
    lastSafeAt = safeAt;
  }
  return lastHrefs;
}

/** A value in double quotes; a value as written holds `"` only when it was unquoted or in single quotes. */
const quoted = (value: string) => `"${value.includes('"') ? value.replace(/"/g, '&quot;') : value}"`;

type Fill = (text: string) => string;

function checkedTag(tag: CheckedHref, fill: Fill): string {
  let out = `<${tag.name}`;
  for (let i = 0; i < tag.attributes.length; i += 2) {
    const name = tag.attributes[i] as string;
    let value = fill(tag.attributes[i + 1] as string);
    if (name === 'href') {
      const fromPlaceholders = (tag.attributes[i + 1] as string).includes(placeholderMark);
      if (isRefusedLink(value) || (fromPlaceholders && !isSafeFilledLink(value))) value = '#';
    }
    out += ` ${name}=${quoted(value)}`;
  }
  return `${out}${tag.selfClosing ? ' />' : '>'}`;
}

/**
 * The design with its placeholders filled by `fill` (which escapes the values), where every `href`
 * that a placeholder helped to write is checked as a URL once filled, and a refused one left in an
 * old design is neutralised too. Only the tags holding such an href are written again; the rest of
 * the design is filled as it is. Linear in the design, which is scanned once per send, and only when
 * some href may need it. `safeAt`: where an href starts (`href=...`) that needs no check, one the
 * renderer added itself whose filled URL it checked (the footer's): written again, it would read
 * the same. (Wherever it lands, even inside a design's unclosed tag, comment or quote, that href is
 * its own `<a>`'s or none: every context the footer can start in ends before its `<a`, or swallows it.)
 */
export function fillDesignPlaceholders(design: string, fill: Fill, safeAt = -1): string {
  const hrefs = hrefsOf(design, safeAt);
  if (hrefs.length === 0) return fill(design);
  let out = '';
  let copied = 0;
  for (const tag of hrefs) {
    out += fill(design.slice(copied, tag.start)) + checkedTag(tag, fill);
    copied = tag.end;
  }
  return out + fill(design.slice(copied));
}
