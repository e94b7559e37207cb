// The mail a single send paused for its reputation leaves the account's notification recipients: what
// was paused, why, and how to resume it. Sent once per pause (by the one caller whose conditional write
// paused it) the way send summaries go (send-summary.ts): as system mail, to recipients not suppressed.
import { escapeHtml } from '../mail/templates/html';

export function pauseNoticeMail(name: string, utr: string, reason: string): { subject: string; html: string; text: string } {
  const lines = [
    `Your single send "${name}" was paused to protect your sending reputation. ${reason}`,
    `Nobody else is mailed until you resume it (GET single/send/resume?utr=${utr}); it then goes on with the recipients not yet mailed, and nobody is mailed twice.`,
  ];
  return {
    subject: `Single send paused: ${name}`.replace(/[\r\n]+/g, ' '),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
    text: lines.join('\n\n'),
  };
}
