// The mail a single send or automation paused for its reputation leaves the account's notification
// recipients: what was paused, why, and how to resume it. Sent once per pause (by the one caller whose conditional write
// paused it) the way send summaries go (send-summary.ts): as system mail, to recipients not suppressed.
import type { ReputationSubject } from '../ledger/sendable';
import { escapeHtml } from '../mail/templates/html';

export interface PauseNoticeMail {
  subject: string;
  html: string;
  text: string;
}

function noticeMail(subject: string, lines: string[]): PauseNoticeMail {
  return {
    subject: subject.replace(/[\r\n]+/g, ' '),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
    text: lines.join('\n\n'),
  };
}

/** What each kind of reputation subject's notice says: what was paused, and how its owner resumes it. */
const notices: Record<ReputationSubject['kind'], (name: string, utr: string, reason: string) => PauseNoticeMail> = {
  'single-send': (name, utr, reason) =>
    noticeMail(`Single send paused: ${name}`, [
      `Your single send "${name}" was paused to protect your sending reputation. ${reason}`,
      `Nobody else is mailed until you resume it (GET single/send/resume?utr=${utr}); it then goes on with the recipients not yet mailed, and nobody is mailed twice.`,
    ]),
  automation: (name, utr, reason) =>
    noticeMail(`Automation paused: ${name}`, [
      `Your automation "${name}" was paused to protect your sending reputation. ${reason}`,
      `No step is mailed until you set it live again (GET automations/set-live?utr=${utr}); each enrolment then goes on with its next step, and nobody is mailed a step twice.`,
    ]),
};

export function pauseNoticeMail(kind: ReputationSubject['kind'], name: string, utr: string, reason: string): PauseNoticeMail {
  return notices[kind](name, utr, reason);
}
