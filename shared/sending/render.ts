// Renders one marketing mail for one recipient: `((name))` placeholders, the preheader, the
// compliance footer when the design has no preferences link, the open pixel, the RFC 8058 headers
// and a plain-text part. Pure: the links come in already built, so it needs no I/O.
import { placeholderPattern } from '../templates/dynamic-content';
import type { MailHeader } from '../mail/mailer';
import { escapeHtml } from '../mail/templates/html';
import { trackLinks } from './click-links';
import { LandmarkFinder, scanHtml } from './html-scanner';
import { fillDesignPlaceholders } from './safe-url';
import { htmlToText, textVisitor } from './html-text';

export interface RecipientLinks {
  /** The unsubscribe preferences page; fills `((unsubscribe_preferences))` and the footer link. */
  preferences: string;
  /** The RFC 8058 one-click URL for `List-Unsubscribe`. */
  oneClickUnsubscribe: string;
  /** The open-tracking pixel. */
  openPixel: string;
  /** The tracked link for a link's target, or undefined to leave it (click-links.ts); no tracking when left out. */
  trackClick?: (target: string) => string | undefined;
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
 * The mail's HTML and text from the filled design: the send's preheader replaces the content of the
 * design's own (library designs carry a span whose class is `preheader`), or is added first in the
 * body, or first in a fragment without one; the open pixel goes before `</body>`, or at the end of a
 * fragment that has none. The design is scanned once, as a browser reads it (a span in a comment
 * or a script is not the preheader, a quoted `>` does not end a tag, and a preheader span that is
 * never closed is left alone), and that one scan also writes the text: neither addition shows in
 * the text (the preheader is hidden, the pixel an image), so the text of the design is the text of
 * the mail. Where the scan cannot tell that (an addition inside an unclosed tag, or a replaced
 * preheader holding markup of its own), the mail is scanned again for its text.
 */
function withPreheaderAndPixel(html: string, preheader: string, pixel: string): { html: string; text: string } {
  const finder = new LandmarkFinder();
  const text = textVisitor(html);
  const bodyEnd = bodyEndIn(html);
  let bodyEndIsTag = false;
  const end = scanHtml(html, {
    text: (start, stop) => text.text!(start, stop),
    tag(tag) {
      if (tag.start === bodyEnd) bodyEndIsTag = true;
      finder.tag(tag);
      text.tag(tag);
    },
  });
  const { preheader: own, bodyStart = 0 } = finder.found;
  // Where the preheader went, and how far it moved what follows.
  let at = 0;
  let moved = 0;
  let mail = html;
  let sameText = true;
  if (preheader !== '' && own) {
    mail = `${html.slice(0, own.start)}${preheader}${html.slice(own.end)}`;
    at = own.end;
    moved = preheader.length - (own.end - own.start);
    sameText = html.indexOf('<', own.start) === own.end;
  } else if (preheader !== '') {
    const span = `<span class="preheader" style="${preheaderStyle}">${preheader}</span>`;
    mail = `${html.slice(0, bodyStart)}${span}${html.slice(bodyStart)}`;
    at = bodyStart;
    moved = span.length;
  }
  // What the preheader added holds no `<`, and no `</body>` can span its edges (each is just past
  // a `>` or at the `<` of `</span`), so the body's end moved with it, unless it was in what it replaced.
  const pixelAt = bodyEnd === -1 ? -1 : own && preheader !== '' && bodyEnd >= own.start && bodyEnd < own.end ? bodyEndIn(mail) : bodyEnd + (bodyEnd >= at ? moved : 0);
  if (pixelAt === -1) {
    mail = `${mail}${pixel}`;
    sameText &&= end !== 'in markup';
  } else {
    mail = `${mail.slice(0, pixelAt)}${pixel}${mail.slice(pixelAt)}`;
    sameText &&= bodyEndIsTag;
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

export function renderMail(input: RenderInput): RenderedMail {
  const values: Record<string, string> = {
    ...input.fields,
    sender_name: input.senderName,
    sender_address: input.senderAddress,
    unsubscribe_preferences: input.links.preferences,
  };
  let design = input.designHtml;
  if (!hasPreferencesLink(design, input.links.preferences)) {
    const index = bodyEndIn(design);
    design = index === -1 ? `${design}${complianceFooter}` : `${design.slice(0, index)}${complianceFooter}${design.slice(index)}`;
  }
  // The preheader is filled (and escaped) first, so a value holding `((...))` is never filled again.
  const preheader = escapeHtml(fillPlaceholders(input.preheader, values));
  const pixel = `<img src="${escapeHtml(input.links.openPixel)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px;">`;
  // An href a placeholder fills is checked as a URL once filled (safe-url.ts): contact data may say `javascript:`.
  const filled = fillDesignPlaceholders(design, (text) => fillPlaceholders(text, values, escapeHtml));
  // Links are tracked once filled (a placeholder may be part of a target), before the text is written from the HTML.
  const { html, text } = withPreheaderAndPixel(input.links.trackClick ? trackLinks(filled, input.links.trackClick) : filled, preheader, pixel);
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
