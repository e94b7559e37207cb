// How the test mails of a single send and of an automation step answer their refusals.
import { config } from '../../shared/config';
import { RateLimited, Unavailable } from '../../shared/errors';
import { on, type ErrorRegistration } from '../../shared/http/error-registry';
import { MailSendingPausedError, MailThrottledError } from '../../shared/mail/mail-errors';
import { SenderNotVerified, TestMailBudgetSpent } from '../../shared/test-sends/test-send';

/** The refusals of a test send; `what` names the tested mail's owner in the answer. */
export function testSendRefusals(what: 'single send' | 'automation schedule'): ErrorRegistration[] {
  return [
    on(SenderNotVerified, () => ({ statusCode: 422, errors: `The sender of this ${what} is not verified.` })),
    on(TestMailBudgetSpent, (error) => new RateLimited(`Too many test mails: at most ${config().testMailsPerHour} per hour per account.`, error.retryAfterSeconds)),
    // SES's rate or daily quota: a test is worth a retry later, not a 500.
    on(MailThrottledError, () => new RateLimited('Mail sending is busy. Try again in a minute.', 60)),
    // SES paused the account's tenant (or the whole SES account): nothing a retry in seconds would fix.
    on(MailSendingPausedError, () => new Unavailable('Mail sending is paused. Try again later.', 300)),
  ];
}
