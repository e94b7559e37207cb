// The system mail that asks the owner of a new sender address to confirm it: subject, HTML and text.
// It goes out from the service's own domain, so it carries nothing a tenant wrote (no sender name,
// nickname or company): only the account's number, which the service gave it, and the address itself.
import { escapeHtml } from './html';

export interface SenderVerificationMail {
  subject: string;
  html: string;
  text: string;
}

export function senderVerificationMail(details: {
  /** The account asking, by the number the service gave it. */
  accountId: number;
  fromEmail: string;
  confirmUrl: string;
  validForHours: number;
}): SenderVerificationMail {
  const { accountId, fromEmail, confirmUrl, validForHours } = details;
  const asked = `Account ${accountId} of this email service asked to send email as`;
  const subject = 'Please confirm your sender address';
  const validity = `This link is valid for ${validForHours} hours. If it has expired, ask for a new verification mail.`;
  const ignore = 'If you did not expect this mail, you can ignore it; the address will not be used as a sender.';
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: Arial, Helvetica, sans-serif; color: #222; line-height: 1.5;">
<p>Hello,</p>
<p>${escapeHtml(asked)} <strong>${escapeHtml(fromEmail)}</strong>. To confirm that this address is yours and may be used by that account, open the link below.</p>
<p><a href="${escapeHtml(confirmUrl)}" style="display: inline-block; padding: 10px 18px; background: #1a73e8; color: #fff; text-decoration: none; border-radius: 4px;">Confirm sender address</a></p>
<p>Or copy this address into your browser:<br>${escapeHtml(confirmUrl)}</p>
<p>${escapeHtml(validity)}</p>
<p>${escapeHtml(ignore)}</p>
</body>
</html>
`;
  const text = [
    'Hello,',
    '',
    `${asked} ${fromEmail}. To confirm that this address is yours and may be used by that account, open this link:`,
    '',
    confirmUrl,
    '',
    validity,
    '',
    ignore,
    '',
  ].join('\n');
  return { subject, html, text };
}
