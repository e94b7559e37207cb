// The short mail a completed single send leaves the account's notification recipients, and the
// completion step that sends it: whoever settles a send last completes it, exactly once. The summary
// is system mail: it skips addresses the account suppressed and counts against its hourly budget.
import { onSingleSendCompleted } from '../audience/engagement-completion';
import { config } from '../config';
import { listNotificationRecipients } from '../notification-recipients/repository';
import { getDispatchState, getSendingSingleSend } from '../single-sends/progress';
import { type DispatchState } from '../single-sends/dispatch-state';
import { completeIfSettled } from '../single-sends/settling';
import type { SingleSend } from '../single-sends/record';
import { describeError, log } from '../log';
import { sendMail } from '../mail/mailer';
import { bouncedAmong } from '../suppressions/bounces';
import { suppressedAmong } from '../suppressions/repository';
import { claimSystemMail, releaseSystemMail } from '../system-mail/budget';
import { escapeHtml } from '../mail/templates/html';

export interface SendSummaryMail {
  subject: string;
  html: string;
  text: string;
}

export function sendSummaryMail(singleSend: SingleSend, totals: DispatchState): SendSummaryMail {
  const subject = `Single send completed: ${singleSend.single_send_name}`.replace(/[\r\n]+/g, ' ');
  // Recipients are the distinct addresses the send tried to mail; suppressed and duplicate entries are not.
  const rows: [string, number][] = [
    ['Recipients', singleSend.triggered + totals.failed + totals.uncertain],
    ['Delivered', singleSend.delivered],
    ['Bounces', singleSend.bounces],
    ['Unsubscribes', singleSend.unsubscribes],
  ];
  const lead = `Your single send "${singleSend.single_send_name}" (subject "${singleSend.subject}") finished sending at ${singleSend.sent_at ?? ''} UTC.`;
  const note = 'Delivered, bounces and unsubscribes keep counting as events arrive; the single send details show the latest figures.';
  const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: Arial, Helvetica, sans-serif; color: #222; line-height: 1.5;">
<p>${escapeHtml(lead)}</p>
<table cellpadding="6" cellspacing="0" border="0">
${rows.map(([label, value]) => `<tr><td>${escapeHtml(label)}</td><td align="right"><strong>${value}</strong></td></tr>`).join('\n')}
</table>
<p style="color: #666; font-size: 13px;">${escapeHtml(note)}</p>
</body>
</html>
`;
  const text = [lead, '', ...rows.map(([label, value]) => `${label}: ${value}`), '', note].join('\n');
  return { subject, html, text };
}

/**
 * Mail `mail` to each notification recipient of the account that may be mailed (not unsubscribed
 * globally, bounced or complaining; one mail each: they need not see each other), each on a place in
 * the system-mail budget. Past the budget the rest are skipped and logged: a notification is a
 * courtesy. Send summaries and reputation pause notices (reputation-notice.ts) go this way.
 */
export async function mailNotificationRecipients(accountId: number, mail: SendSummaryMail, context: Record<string, unknown>): Promise<void> {
  const recipients = (await listNotificationRecipients(accountId)).map((recipient) => recipient.email_address);
  if (recipients.length === 0) return;
  const [unsubscribed, bounced] = await Promise.all([suppressedAmong(accountId, recipients), bouncedAmong(accountId, recipients)]);
  const suppressed = new Set([...unsubscribed, ...bounced]);
  const mailable = recipients.filter((address) => !suppressed.has(address.trim().toLowerCase()));
  for (const [index, address] of mailable.entries()) {
    const check = await claimSystemMail(accountId, 'summary');
    if (!check.allowed) {
      log.warn('notification mail over the system-mail budget', { accountId, ...context, subject: mail.subject, skipped: mailable.length - index });
      return;
    }
    try {
      await sendMail({ from: config().systemFromEmail, to: [address], subject: mail.subject, html: mail.html, text: mail.text });
    } catch (error) {
      await releaseSystemMail(check.claim);
      throw error;
    }
  }
}

async function mailSummary(accountId: number, utr: string, totals: DispatchState): Promise<void> {
  const singleSend = await getSendingSingleSend(accountId, utr);
  if (singleSend) await mailNotificationRecipients(accountId, sendSummaryMail(singleSend, totals), { utr });
}

/**
 * Complete the send if its dispatch is done and every batch settled, and then send the summary.
 * True when this call completed it. A summary that cannot be sent is logged: the send is complete.
 */
export async function finishIfComplete(accountId: number, utr: string): Promise<boolean> {
  // A read first: the completing transaction holds the send's item, and running it after every batch
  // would make the deliveries' counter updates on that item conflict with it.
  const progress = await getDispatchState(accountId, utr);
  if (!progress?.done || progress.completedAt !== null || progress.settledBatches < progress.fannedBatches) return false;
  const totals = await completeIfSettled(accountId, utr);
  if (!totals) return false;
  try {
    await onSingleSendCompleted(accountId, utr);
  } catch (error) {
    log.error('segments naming the send not rebuilt', { accountId, utr, ...describeError(error) });
  }
  try {
    await mailSummary(accountId, utr, totals);
  } catch (error) {
    log.error('send summary could not be mailed', { accountId, utr, ...describeError(error) });
  }
  return true;
}
