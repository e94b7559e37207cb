// Click tracking links: every http(s) link of a marketing mail, except our own pages (preferences,
// unsubscribe), goes through our public click endpoint, which counts the click and answers 302 to the
// original URL. The target travels in the link itself, bound to the recipient's token by an HMAC, so
// the endpoint only ever redirects where one of our mails pointed: it is never an open redirect.
import { createHash } from 'node:crypto';
import { config } from '../config';
import { isLinkMac, linkMac } from '../signed-token';
import { decodeEntities } from './html-entities';
import { attribute, scanHtml, type HtmlTag } from './html-scanner';

/** The click endpoint's path below the API root (the route in shared/routes.ts). */
export const clickPath = 'public/click';

/** Bytes of HMAC kept in a link: 128 bits, far beyond guessing, and 22 characters of URL. */
const signatureBytes = 16;
/** Targets longer than this are left untracked: browsers and mail clients cut longer URLs. */
export const maxTrackedUrlLength = 2000;
/**
 * Links past this many in one mail are left untracked: each tracked link is a few hundred characters
 * longer in the HTML and the text, so a design made of links (350 KB holds about 10,000) would
 * otherwise mail every recipient several megabytes.
 */
export const maxTrackedLinks = 500;

const httpUrl = /^https?:\/\/[^\s/?#]/i;

const clickPurpose = 'click';
/**
 * The hidden link's signature is derived for it alone: the same target's visible link never passes
 * for it, nor it for the visible one, and it needs no marker of its own in the URL.
 */
const hiddenClickPurpose = 'hidden-click';

/**
 * The signature binding a target URL to a recipient token: a MAC under the current token key, derived
 * for clicks alone (no other MAC or token of ours matches it). Links mailed under an earlier key keep
 * verifying while that key stays in the key set (shared/signed-token.ts).
 */
function clickSignature(token: string, target: string): string {
  return linkMac(clickPurpose, `${token}\n${target}`).subarray(0, signatureBytes).toString('base64url');
}

/** Whether a target is an absolute http(s) URL a redirect can name (never `javascript:` or the like). */
export function isHttpTarget(target: string): boolean {
  return target.length <= maxTrackedUrlLength && httpUrl.test(target) && URL.canParse(target);
}

/** Whether a link's target (decoded, trimmed) is counted: an absolute http(s) URL that is not one of our own. */
export function isTrackedTarget(target: string, ownBase = config().publicBaseUrl.toLowerCase()): boolean {
  return isHttpTarget(target) && !target.toLowerCase().startsWith(ownBase);
}

/** Whether a URL is one of our click links (SES's own click tracking reports them too; we counted them already). */
export function isClickLink(url: string): boolean {
  return url.toLowerCase().startsWith(`${config().publicBaseUrl}${clickPath}`.toLowerCase());
}

/** The tracked link for one recipient (their token) and one target. */
export function clickUrl(token: string, target: string): string {
  const signature = clickSignature(token, target);
  return `${config().publicBaseUrl}${clickPath}?token=${encodeURIComponent(token)}&url=${encodeURIComponent(target)}&sig=${signature}`;
}

/** A recipient's link builder for renderMail: the tracked link, or undefined for a target left as it is. */
export function clickLinkBuilder(token: string): (target: string) => string | undefined {
  // What every link of the mail shares is worked out once, not once per link.
  const { publicBaseUrl } = config();
  const ownBase = publicBaseUrl.toLowerCase();
  const prefix = `${publicBaseUrl}${clickPath}?token=${encodeURIComponent(token)}&url=`;
  return (target) =>
    isTrackedTarget(target, ownBase) ? `${prefix}${encodeURIComponent(target)}&sig=${clickSignature(token, target)}` : undefined;
}

/**
 * The hidden link of a recipient's mail (render.ts puts it out of sight): a click link like the others,
 * to `target` (the mail's first tracked target, so a scanner following it lands where the mail's own
 * links lead), signed for the hidden link alone so the click endpoint knows it for a bot's.
 */
export function hiddenClickUrl(token: string, target: string): string {
  const signature = linkMac(hiddenClickPurpose, `${token}\n${target}`).subarray(0, signatureBytes).toString('base64url');
  return `${config().publicBaseUrl}${clickPath}?token=${encodeURIComponent(token)}&url=${encodeURIComponent(target)}&sig=${signature}`;
}

/** The signature as bytes when it is spelled as ours (22 canonical base64url characters); else undefined. */
function signatureBytesOf(signature: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]{22}$/.test(signature)) return undefined;
  const given = Buffer.from(signature, 'base64url');
  // base64url decoding ignores the last character's spare bits: only the canonical spelling is ours.
  return given.toString('base64url') === signature && given.length === signatureBytes ? given : undefined;
}

/** Whether a click link's parts are ours, unchanged: the signature is checked in constant time. */
export function isSignedClick(token: string, target: string, signature: string): boolean {
  const given = signatureBytesOf(signature);
  return given !== undefined && isLinkMac(clickPurpose, `${token}\n${target}`, given);
}

/** Which of our links a click followed: a tracked link, the hidden link, or none of ours (undefined). */
export function signedClickKind(token: string, target: string, signature: string): 'link' | 'hidden' | undefined {
  const given = signatureBytesOf(signature);
  if (given === undefined) return undefined;
  if (isLinkMac(clickPurpose, `${token}\n${target}`, given)) return 'link';
  return isLinkMac(hiddenClickPurpose, `${token}\n${target}`, given) ? 'hidden' : undefined;
}

/** A link's name in keys and markers: a hash, so any URL length fits a key. */
export function linkHash(target: string): string {
  return createHash('sha256').update(target, 'utf8').digest('base64url').slice(0, 22);
}

/** An attribute value in double quotes; a value as written never holds `"` unless it was unquoted. */
const quoted = (value: string) => `"${value.includes('"') ? value.replace(/"/g, '&quot;') : value}"`;

/** The `<a>` tag again, its href replaced (the value as written: HTML-escaped). */
function rewrittenTag(tag: HtmlTag, href: string): string {
  let out = '<a';
  let replaced = false;
  for (let i = 0; i < tag.attributes.length; i += 2) {
    const name = tag.attributes[i] as string;
    const isHref: boolean = !replaced && name === 'href';
    replaced ||= isHref;
    out += ` ${name}=${quoted(isHref ? href : (tag.attributes[i + 1] as string))}`;
  }
  return `${out}${tag.selfClosing ? ' />' : '>'}`;
}

const attributeEntities: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };
const escapeAttribute = (text: string) => text.replace(/[&"<>]/g, (character) => attributeEntities[character] as string);

/** A tag as it is written when its link is tracked: an `<a>` whose target `track` maps to a tracked link, with that as its href; else undefined. */
export function trackedTag(tag: HtmlTag, track: (target: string) => string | undefined): string | undefined {
  if (tag.kind !== 'open' || tag.name !== 'a') return undefined;
  const href = attribute(tag, 'href');
  if (href === undefined) return undefined;
  const link = track(decodeEntities(href).trim());
  return link === undefined ? undefined : rewrittenTag(tag, escapeAttribute(link));
}

/**
 * The HTML with the href of each `<a>` whose target `track` maps to a tracked link replaced by it.
 * One scan by the shared scanner (attributes read only on `<a>` tags), so an `<a>` in a comment or a
 * script is left alone, and the time stays linear in the HTML; at most `maxTrackedLinks` links. A
 * mail's links are tracked in the scan that also writes its text (render.ts), tag by tag with
 * `trackedTag`; this is the same on its own.
 */
export function trackLinks(html: string, track: (target: string) => string | undefined): string {
  if (!/href/i.test(html)) return html;
  let out = '';
  let copied = 0;
  let tracked = 0;
  scanHtml(html, {
    wantsAttributes: (name) => name === 'a',
    tag(tag) {
      const rewritten = trackedTag(tag, track);
      if (rewritten === undefined) return false;
      out += html.slice(copied, tag.start) + rewritten;
      copied = tag.end;
      // The rest is left as it is: the scan stops.
      return ++tracked >= maxTrackedLinks;
    },
  });
  return copied === 0 ? html : out + html.slice(copied);
}
