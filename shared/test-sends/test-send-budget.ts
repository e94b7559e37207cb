// The per-account budget of test mails: a test send mails addresses the account names, outside the
// audience and its unsubscribes, so it could otherwise be used to mail anyone. It is counted on the
// account's system-mail counter item of the clock hour (UTC), in an attribute of its own
// (system-mail/hourly-places.ts): test mails neither use up nor are held back by the verification and
// summary mails that item also counts.
import { config } from '../config';
import { currentTime } from '../time';
import type { Key } from '../table/keys';
import { claimHourlyPlaces, releaseHourlyPlaces } from '../system-mail/hourly-places';

const attribute = 'test';

/** Places claimed in one hour's budget: give back those whose mail was not sent. */
export interface TestMailClaim {
  key: Key;
  count: number;
}

export type TestMailBudgetCheck = { allowed: true; claim: TestMailClaim } | { allowed: false; retryAfterSeconds: number };

/** Take `count` places in the account's test-mail budget for this hour, or say when the hour ends. */
export async function claimTestMails(accountId: number, count: number): Promise<TestMailBudgetCheck> {
  const check = await claimHourlyPlaces(accountId, attribute, count, config().testMailsPerHour);
  if (check.allowed) return { allowed: true, claim: { key: check.key, count } };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((check.windowEnds.getTime() - currentTime().getTime()) / 1000)) };
}

/** Give back `count` places of a claim whose mails were not sent. */
export function releaseTestMails(claim: TestMailClaim, count: number): Promise<void> {
  return releaseHourlyPlaces(claim.key, attribute, count);
}
