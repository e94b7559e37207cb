// The scheduler's target that mails an account's double opt-in confirmation mails: booked at once when
// contacts become owed one or their sender is verified, and again by itself when mails are left (the
// next hour's budget, a throttle, its time running out). See shared/audience/opt-in-mailer.ts.
import type { Context } from 'aws-lambda';
import { runOptInMails } from '../../shared/audience/opt-in-mailer';
import { eventHandler } from '../../shared/event-entry';
import { remainingOf, timeLeft } from '../../shared/time-left';

/** Time kept in hand before Lambda's limit: the mail in flight, its settling write and the next booking. */
const reserveMs = 10_000;

interface OptInPayload {
  accountId?: unknown;
}

export const handler = eventHandler(async (payload: OptInPayload, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const accountId = Number(payload.accountId);
  if (!Number.isSafeInteger(accountId) || accountId < 1) throw new Error(`Not a confirmation mail run: ${JSON.stringify(payload)}`);
  const remaining = remainingOf(context);
  return runOptInMails(accountId, remaining ? timeLeft(remaining, { reserveMs }) : undefined);
});
