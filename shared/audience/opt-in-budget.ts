// The per-account budget of double opt-in confirmation mails: each goes to an address the account
// names, before that address has agreed to anything, so an account could otherwise use them to mail
// anyone. Counted, as test mails are, on the account's system-mail counter item of the clock hour
// (UTC) in an attribute of its own: `OPT_IN_MAILS_PER_HOUR` (default 1,000) a clock hour. A claim is
// one conditional UpdateItem ADD, so concurrent runs cannot pass the limit together; past it the
// mails wait, owed, for the next hour.
import { config } from '../config';
import { currentTime } from '../time';
import { conditionHeld, updateItem } from '../table/records';
import type { Key } from '../table/keys';
import { SYSTEM_MAIL_BUDGET, systemMailBudgetKey } from '../system-mail/keys';

const windowMs = 3_600_000;

export type OptInBudgetCheck = { allowed: true; key: Key } | { allowed: false; nextWindow: Date };

/** Take one place in this hour's budget, or say when the next hour starts. */
export async function claimOptInPlace(accountId: number): Promise<OptInBudgetCheck> {
  const now = currentTime();
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  const end = start + windowMs;
  const key = systemMailBudgetKey(accountId, new Date(start));
  const claimed = await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: 'SET #entity = :entity, #expires = :expires ADD #optIn :one',
      ConditionExpression: 'attribute_not_exists(#optIn) OR #optIn < :limit',
      ExpressionAttributeNames: { '#entity': 'entity', '#expires': 'expires_at', '#optIn': 'opt_in' },
      // The item expires an hour after its window closes, as the system-mail budget's does.
      ExpressionAttributeValues: { ':entity': SYSTEM_MAIL_BUDGET, ':expires': Math.floor(end / 1000) + windowMs / 1000, ':one': 1, ':limit': config().optInMailsPerHour },
    }),
  );
  return claimed ? { allowed: true, key } : { allowed: false, nextWindow: new Date(end) };
}

/** Give back the place of a mail that was not sent. */
export async function releaseOptInPlace(key: Key): Promise<void> {
  await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: 'ADD #optIn :minus',
      // Only an existing counter: a release never creates an item without its expiry.
      ConditionExpression: 'attribute_exists(#optIn)',
      ExpressionAttributeNames: { '#optIn': 'opt_in' },
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}
