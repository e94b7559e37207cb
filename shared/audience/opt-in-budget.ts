// The per-account budget of double opt-in confirmation mails: each goes to an address the account
// names, before that address has agreed to anything, so an account could otherwise use them to mail
// anyone. `OPT_IN_MAILS_PER_HOUR` (default 1,000) a clock hour, counted as test mails are
// (system-mail/hourly-places.ts); past it the mails wait, owed, for the next hour.
import { config } from '../config';
import type { Key } from '../table/keys';
import { claimHourlyPlaces, releaseHourlyPlaces } from '../system-mail/hourly-places';

const attribute = 'opt_in';

export type OptInBudgetCheck = { allowed: true; key: Key } | { allowed: false; nextWindow: Date };

/** Take one place in this hour's budget, or say when the next hour starts. */
export async function claimOptInPlace(accountId: number): Promise<OptInBudgetCheck> {
  const check = await claimHourlyPlaces(accountId, attribute, 1, config().optInMailsPerHour);
  return check.allowed ? check : { allowed: false, nextWindow: check.windowEnds };
}

/** Give back the place of a mail that was not sent. */
export function releaseOptInPlace(key: Key): Promise<void> {
  return releaseHourlyPlaces(key, attribute, 1);
}
