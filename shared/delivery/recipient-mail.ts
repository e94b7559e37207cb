// One recipient's mail, ready for SES: the design rendered with the recipient's values and links (open
// pixel, tracked clicks and the hidden link, preferences, RFC 8058 one-click unsubscribe), under the
// send's tag and tenant.
// The deliverer and test mails compose it the same way.
import type { OutgoingMail } from '../mail/mailer';
import { clickLinkBuilder, hiddenClickUrl } from '../rendering/click-tracking';
import { renderMail } from '../rendering/render';
import { oneClickUnsubscribeUrl, openPixelUrl, preferencesUrl, recipientToken } from '../public-links/recipient-links';
import { abVariantTag, encodeSendRef, markerLayoutTag, markersByAddress, sendRefTag, type SendRef } from '../ledger/send-ref';
import type { DeliveryRecipient } from './delivery-message';
import type { SendContent } from './send-content';
import { sendingSettings } from './settings';

/** The recipient's mail, ready for SES. */
export function recipientMail(ref: SendRef, content: SendContent, recipient: DeliveryRecipient): OutgoingMail {
  const token = recipientToken(ref, recipient.email, content.unsubscribeGroupId, content.testVariant);
  const mail = renderMail({
    designHtml: content.designHtml,
    subject: content.subject,
    preheader: content.preheader,
    fields: { ...recipient.fields, email: recipient.fields.email ?? recipient.email },
    senderName: content.senderName,
    senderAddress: content.senderAddress,
    links: {
      preferences: preferencesUrl(token),
      oneClickUnsubscribe: oneClickUnsubscribeUrl(token),
      openPixel: openPixelUrl(token),
      trackClick: clickLinkBuilder(token),
      hiddenClick: (target) => hiddenClickUrl(token, target),
    },
  });
  return {
    from: content.senderName ? `${content.senderName} <${content.fromEmail}>` : content.fromEmail,
    to: [recipient.email],
    ...(content.replyTo ? { replyTo: [content.replyTo] } : {}),
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    headers: mail.headers,
    configurationSetName: sendingSettings().configurationSetName,
    tags: [
      { name: sendRefTag, value: encodeSendRef(ref) },
      { name: markerLayoutTag, value: markersByAddress },
      ...(content.testVariant === undefined ? [] : [{ name: abVariantTag, value: String(content.testVariant) }]),
    ],
    ...(content.tenantName ? { tenantName: content.tenantName } : {}),
  };
}
