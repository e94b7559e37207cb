// Renders one marketing mail for one recipient: `((name))` placeholders, the preheader, the
// compliance footer when the design has no preferences link, the open pixel, the hidden link of a
// mail whose links are tracked, the RFC 8058 headers and a plain-text part. Pure: the links come in
// already built, so it needs no I/O.
import { placeholderPattern } from './dynamic-content';
import type { MailHeader } from '../mail/mailer';
import { escapeHtml } from '../mail/templates/html';
import { maxTrackedLinks, trackedTag } from './click-tracking';
import { LandmarkFinder, parseStartTag, scanHtml } from './html-scanner';
import { fillDesignPlaceholders, isSafeFilledLink } from './safe-url';
import { htmlToText, textVisitor } from './html-text';

export interface RecipientLinks {
  /** The unsubscribe preferences page; fills `((unsubscribe_preferences))` and the footer link. */
  preferences: string;
  /** The RFC 8058 one-click URL for `List-Unsubscribe`. */
  oneClickUnsubscribe: string;
  /** The open-tracking pixel. */
  openPixel: string;
  /** The tracked link for a link's target, or undefined to leave it (click-tracking.ts); no tracking when left out. */
  trackClick?: (target: string) => string | undefined;
  /**
   * The hidden link to a target (click-tracking.ts, hiddenClickUrl): put out of sight beside the pixel,
   * to the first tracked link's target, in a mail with at least one tracked link. None when left out.
   */
  hiddenClick?: (target: string) => string;
}

export interface RenderInput {
  /** The design as HTML, with placeholders still in it. */
  designHtml: string;
  subject: string;
  preheader: string;
  /** The recipient's values by placeholder name (contact fields, custom fields, full_name). */
  fields: Readonly<Record<string, string>>;
  senderName: string;
  senderAddress: string;
  links: RecipientLinks;
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
  headers: MailHeader[];
}

const preferencesPlaceholder = '((unsubscribe_preferences))';

/** Every `((name))` replaced by its value, or by nothing when the recipient has none (never left showing). */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>, escape: (value: string) => string = (value) => value): string {
  return text.replace(placeholderPattern, (_, name: string) => escape(Object.hasOwn(values, name) ? (values[name] ?? '') : ''));
}

/** Where the first `</body>` is, or -1. (Linear: no match can backtrack past its own run of spaces.) */
const bodyEndIn = (html: string) => html.search(/<\/body\s*>/i);

const preheaderStyle = 'display:none!important;visibility:hidden;mso-hide:all;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;';

/**
 * The hidden link, as the mail carries it: in an element no client shows (`mso-hide` for Outlook's
 * Word engine, which ignores `display`), out of screen readers and the tab order, with no text to
 * click. Only software that follows every href in a mail follows it; the text part leaves it out.
 */
function hiddenLinkHtml(url: string): string {
  return `<div style="display:none!important;mso-hide:all;max-height:0;max-width:0;overflow:hidden;opacity:0;" aria-hidden="true"><a href="${escapeHtml(url)}" tabindex="-1"></a></div>`;
}

/**
 * The mail's HTML and text from the filled design: its links tracked (click-tracking.ts, at most
 * `maxTrackedLinks`), and the send's preheader replacing the content of the design's own (library
 * designs carry a span whose class is `preheader`), or added first in the body, or first in a
 * fragment without one; the open pixel goes before `</body>`, or at the end of a fragment that has
 * none. The design is scanned once, as a browser reads it (a span or a link in a comment or a script
 * is neither the preheader nor a link, a quoted `>` does not end a tag, and a preheader span that is
 * never closed is left alone), and that one scan rewrites the links, finds the body and the
 * preheader, and writes the text, from each link as rewritten: no addition shows in the text (the
 * preheader and the hidden link are hidden, the pixel an image), so the text of the design is the
 * text of the mail.
 * A design with no `</body>` is scanned with the pixel after it, as the mail ends, so that a design
 * ending inside a tag, which the pixel's `>` then ends, needs no second scan. Where the one scan
 * cannot tell the text (the pixel put inside markup before a `</body>` that is not a tag, or a
 * replaced preheader holding markup of its own), the mail is scanned again for its text.
 */
function composeMail(html: string, preheader: string, pixel: string, links: Pick<RecipientLinks, 'trackClick' | 'hiddenClick'>): { html: string; text: string } {
  const finder = new LandmarkFinder();
  // The first target tracked, for the hidden link (which goes where the mail's own links lead).
  let firstTarget: string | undefined;
  const { trackClick, hiddenClick } = links;
  const track =
    trackClick && hiddenClick
      ? (target: string) => {
          const link = trackClick(target);
          if (link !== undefined) firstTarget ??= target;
          return link;
        }
      : trackClick;
  // Tracking links can only lose a `</body>`, never make one (click-tracking.ts writes no `<`), so with none
  // here the pixel goes last. The tags the pixel ends are the mail's, not the design's: no link, no landmark.
  const designBodyEnd = bodyEndIn(html);
  const withPixel = designBodyEnd === -1;
  const scanned = withPixel ? `${html}${pixel}` : html;
  const designEnd = html.length;
  const text = textVisitor(scanned);
  // The links rewritten so far (`out` up to `copied` in `html`), and how far that moved what follows.
  let out = '';
  let copied = 0;
  let tracked = 0;
  let shift = 0;
  // How far the links rewritten before the design's `</body>` moved it, or -1 once one held it (the mail may have another).
  let bodyEndShift = 0;
  // Where each end tag that may be the `</body>` the pixel goes before starts, once the links are rewritten.
  const bodyEnds: number[] = [];
  const end = scanHtml(scanned, {
    text: (start, stop) => text.text!(start, stop),
    tag(tag) {
      if (tag.end > designEnd) {
        text.tag(tag);
        return;
      }
      if (tag.kind === 'close') {
        if (tag.name.startsWith('body')) bodyEnds.push(tag.start + shift);
      } else if (track && tag.name === 'a' && tracked < maxTrackedLinks) {
        const rewritten = trackedTag(tag, track);
        if (rewritten !== undefined) {
          out += html.slice(copied, tag.start) + rewritten;
          copied = tag.end;
          shift += rewritten.length - (tag.end - tag.start);
          if (tag.end <= designBodyEnd) bodyEndShift = shift;
          else if (tag.start < designBodyEnd) bodyEndShift = -1;
          tracked++;
          // The text is written from the link as the mail holds it, read as the scanner reads it.
          text.tag(parseStartTag(rewritten)!);
          return;
        }
      }
      finder.tag(tag, shift);
      text.tag(tag);
    },
  });
  const linked = copied === 0 ? html : out + html.slice(copied);
  const bodyEnd = withPixel ? -1 : bodyEndShift === -1 ? bodyEndIn(linked) : designBodyEnd + bodyEndShift;
  const { preheader: own, bodyStart = 0 } = finder.found;
  // Where the preheader went, and how far it moved what follows.
  let at = 0;
  let moved = 0;
  let mail = linked;
  let sameText = true;
  if (preheader !== '' && own) {
    mail = `${linked.slice(0, own.start)}${preheader}${linked.slice(own.end)}`;
    at = own.end;
    moved = preheader.length - (own.end - own.start);
    sameText = linked.indexOf('<', own.start) === own.end;
  } else if (preheader !== '') {
    const span = `<span class="preheader" style="${preheaderStyle}">${preheader}</span>`;
    mail = `${linked.slice(0, bodyStart)}${span}${linked.slice(bodyStart)}`;
    at = bodyStart;
    moved = span.length;
  }
  // What the preheader added holds no `<`, and no `</body>` can span its edges (each is just past
  // a `>` or at the `<` of `</span`), so the body's end moved with it, unless it was in what it replaced.
  const pixelAt = bodyEnd === -1 ? -1 : own && preheader !== '' && bodyEnd >= own.start && bodyEnd < own.end ? bodyEndIn(mail) : bodyEnd + (bodyEnd >= at ? moved : 0);
  // Hidden, it adds nothing to the text; it goes where the scan left off in text (before the `</body>`
  // found as a tag, or after the pixel), never into a comment, a raw text element or a tag left open.
  const hidden = hiddenClick && firstTarget !== undefined ? hiddenLinkHtml(hiddenClick(firstTarget)) : '';
  if (pixelAt === -1) {
    mail = `${mail}${pixel}${end === 'in text' ? hidden : ''}`;
    // A `</body>` only the design had, inside a link now tracked: the pixel went last, unscanned.
    sameText &&= withPixel || end !== 'in markup';
  } else {
    const atBodyTag = bodyEnds.includes(bodyEnd);
    mail = `${mail.slice(0, pixelAt)}${atBodyTag ? hidden : ''}${pixel}${mail.slice(pixelAt)}`;
    sameText &&= atBodyTag;
  }
  return { html: mail, text: sameText ? text.result() : htmlToText(mail) };
}

/** Whether the design already offers the preferences page (as the placeholder or as the link itself). */
export function hasPreferencesLink(designHtml: string, preferencesUrl: string): boolean {
  return designHtml.includes(preferencesPlaceholder) || designHtml.includes(preferencesUrl) || designHtml.includes(escapeHtml(preferencesUrl));
}

/** The footer every mail must carry (CAN-SPAM: who sent it, where, and how to stop it), in placeholders. */
export const complianceFooter =
  '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>' +
  '<td align="center" style="padding:24px 12px;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:1.5;color:#6b7280;">' +
  '<p style="margin:0 0 8px 0;">((sender_name))<br>((sender_address))</p>' +
  `<p style="margin:0;"><a href="${preferencesPlaceholder}" target="_blank" style="color:#6b7280;text-decoration:underline;">Unsubscribe or manage your preferences</a></p>` +
  '</td></tr></table>';

const footerHref = complianceFooter.indexOf(`href="${preferencesPlaceholder}"`);

export function renderMail(input: RenderInput): RenderedMail {
  const values: Record<string, string> = {
    ...input.fields,
    sender_name: input.senderName,
    sender_address: input.senderAddress,
    unsubscribe_preferences: input.links.preferences,
  };
  let design = input.designHtml;
  // Where the footer's href starts, when its URL, filled, is one the href check would keep as it is.
  let footerHrefAt = -1;
  if (!hasPreferencesLink(design, input.links.preferences)) {
    const index = bodyEndIn(design);
    const at = index === -1 ? design.length : index;
    design = `${design.slice(0, at)}${complianceFooter}${design.slice(at)}`;
    if (isSafeFilledLink(escapeHtml(input.links.preferences))) footerHrefAt = at + footerHref;
  }
  // The preheader is filled (and escaped) first, so a value holding `((...))` is never filled again.
  const preheader = escapeHtml(fillPlaceholders(input.preheader, values));
  const pixel = `<img src="${escapeHtml(input.links.openPixel)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px;">`;
  // An href a placeholder fills is checked as a URL once filled (safe-url.ts): contact data may say `javascript:`.
  const filled = fillDesignPlaceholders(design, (text) => fillPlaceholders(text, values, escapeHtml), footerHrefAt);
  // Links are tracked once filled (a placeholder may be part of a target), in the scan that writes the text.
  const { html, text } = composeMail(filled, preheader, pixel, input.links);
  return {
    subject: fillPlaceholders(input.subject, values).replace(/[\r\n]+/g, ' '),
    html,
    text,
    headers: [
      { name: 'List-Unsubscribe', value: `<${input.links.oneClickUnsubscribe}>` },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ],
  };
}
