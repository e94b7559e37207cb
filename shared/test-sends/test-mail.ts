// The mail a test send mails and a preview shows: the recipient's real mail, composed by the delivery
// path itself (recipientMail), with only what would act on the real send made harmless. Its recipient
// links (preferences page, one-click unsubscribe, open pixel) carry a token signed for another purpose,
// which the public pages refuse as they refuse any foreign token: nobody is unsubscribed and no open is
// counted. Its tracked links go straight to their targets, so a test click counts nowhere. Its SES
// tags name no send, so SES's delivery, bounce and complaint events of it count nowhere either.
import { config } from '../config';
import type { OutgoingMail } from '../mail/mailer';
import { signToken } from '../signed-token';
import { clickPath } from '../rendering/click-tracking';
import type { DeliveryRecipient } from '../delivery/delivery-message';
import { recipientMail } from '../delivery/recipient-mail';
import { openPixelUrl, verifyRecipientToken } from '../public-links/recipient-links';
import type { SendContent } from '../delivery/send-content';
import { encodeSendRef, sameSendRef, type SendRef } from '../ledger/send-ref';

/** Put before the subject of every test mail. */
export const testSubjectPrefix = '[Test] ';

/** The purpose of a test mail's recipient token: not `recipient`, so no public page acts on it. */
export const testRecipientPurpose = 'test-recipient';

/**
 * Placeholder values when a test or preview names no contact: every dynamic-content name but the
 * sender's (those come from the sender) and the preferences link (the mail's own). Documented in
 * docs/api-notes.md.
 */
export const sampleFields: Readonly<Record<string, string>> = {
  first_name: 'Jane',
  last_name: 'Doe',
  email: 'jane.doe@example.com',
  alt_email: 'jane.doe.alt@example.com',
  country: 'United States',
  state: 'California',
  city: 'Los Angeles',
  address_line1: '1 Sample Street',
  address_line2: 'Apartment 2',
  state_province_region: 'California',
  postal_code: '90001',
  full_name: 'Jane Doe',
  father_name: 'John Doe',
  designation: 'Marketing Manager',
  age: '35',
  company_name: 'Example Inc.',
  birth_date: '1990-01-31',
  join_date: '2024-01-15',
};

/** The placeholder values of a test or preview: a contact's, or the samples. */
export interface TestPersona {
  contactId: number | null;
  fields: Record<string, string>;
}

export const samplePersona: TestPersona = { contactId: null, fields: { ...sampleFields } };

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Every tracked link carrying `encodedToken`, by its target: in HTML its `&` are `&amp;`, so both forms are matched. */
function clickLinkPattern(encodedToken: string): RegExp {
  const start = escapeRegex(`${config().publicBaseUrl}${clickPath}?token=${encodedToken}`);
  return new RegExp(`${start}&(?:amp;)?url=([^&"'\\s<>]*)&(?:amp;)?sig=[A-Za-z0-9_-]+`, 'g');
}

function untracked(text: string, encodedToken: string, inHtml: boolean): string {
  return text.replace(clickLinkPattern(encodedToken), (link, encodedTarget: string) => {
    let target: string;
    try {
      target = decodeURIComponent(encodedTarget);
    } catch {
      return link;
    }
    return inHtml ? escapeAttribute(target) : target;
  });
}

/**
 * The token recipientMail put in the mail's links, read back from its open pixel (every mail has
 * one): tokens are sealed with a fresh IV each time, so computing it again would not give the same
 * text. Only a token this service sealed for this recipient of this send counts, so a design that
 * shows a pixel-like URL of its own cannot stand in for it.
 */
function mailedToken(html: string, ref: SendRef, email: string): string {
  const pixel = openPixelUrl('');
  for (let at = html.indexOf(pixel); at !== -1; at = html.indexOf(pixel, at + pixel.length)) {
    const token = /^[A-Za-z0-9._~%-]+/.exec(html.slice(at + pixel.length))?.[0];
    const check = token === undefined ? undefined : verifyRecipientToken(decodeURIComponentSafely(token));
    if (token && check?.valid && sameSendRef(check.claims.ref, ref) && check.claims.email === email) return token;
  }
  throw new Error('The rendered mail has no open pixel carrying its recipient token');
}

function decodeURIComponentSafely(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * `recipient`'s mail for `ref`, made harmless: what a test send mails (with `[Test] ` added by the
 * caller) and what a preview shows. Pure, like recipientMail.
 */
export function harmlessRecipientMail(ref: SendRef, content: SendContent, recipient: DeliveryRecipient): OutgoingMail {
  const mail = recipientMail(ref, content, recipient);
  const live = mailedToken(mail.html, ref, recipient.email);
  const harmless = encodeURIComponent(signToken(testRecipientPurpose, { s: encodeSendRef(ref), e: recipient.email }));
  // A token is long random-looking text: it occurs only where a link carries it, never by chance.
  const swap = (text: string, inHtml: boolean) => untracked(text, live, inHtml).split(live).join(harmless);
  return {
    ...mail,
    html: swap(mail.html, true),
    ...(mail.text === undefined ? {} : { text: swap(mail.text, false) }),
    ...(mail.headers ? { headers: mail.headers.map((header) => ({ name: header.name, value: swap(header.value, false) })) } : {}),
    tags: [],
  };
}

/** The recipient of a test mail: the tester's address, with the persona's values (its `((email))` too). */
export function testRecipient(address: string, persona: TestPersona): DeliveryRecipient {
  return { email: address, contactId: persona.contactId, fields: { ...persona.fields } };
}
