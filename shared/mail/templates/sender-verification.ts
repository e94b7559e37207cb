// The system mail that asks the owner of a new sender address to confirm it: subject, HTML and text.
import { escapeHtml } from './html';

export interface SenderVerificationMail {
  subject: string;
  html: string;
  text: string;
}

export function senderVerificationMail(details: {
  fromName: string;
  fromEmail: string;
  confirmUrl: string;
  validForHours: number;
}): SenderVerificationMail {
  const { fromName, fromEmail, confirmUrl, validForHours } = details;
  const subject = 'Please confirm your sender address';
  const validity = `This link is valid for ${validForHours} hours. If it has expired, ask for a new verification mail.`;
  const ignore = 'If you did not expect this mail, you can ignore it; the address will not be used as a sender.';
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: Arial, Helvetica, sans-serif; color: #222; line-height: 1.5;">
<p>Hello ${escapeHtml(fromName)},</p>
<p>Someone asked to send email as <strong>${escapeHtml(fromEmail)}</strong>. To confirm that this address is yours, open the link below.</p>
<p><a href="${escapeHtml(confirmUrl)}" style="display: inline-block; padding: 10px 18px; background: #1a73e8; color: #fff; text-decoration: none; border-radius: 4px;">Confirm sender address</a></p>
<p>Or copy this address into your browser:<br>${escapeHtml(confirmUrl)}</p>
<p>${escapeHtml(validity)}</p>
<p>${escapeHtml(ignore)}</p>
</body>
</html>
`;
  const text = [
    `Hello ${fromName},`,
    '',
    `Someone asked to send email as ${fromEmail}. To confirm that this address is yours, open this link:`,
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
