// The per-account budget of test mails: a test send mails addresses the account names, outside the
// audience and its unsubscribes, so it could otherwise be used to mail anyone. It is counted on the
// account's system-mail counter item of the clock hour (UTC), in an attribute of its own: test mails
// neither use up nor are held back by the verification and summary mails that item also counts. A
// claim of several places is one conditional UpdateItem ADD, so concurrent requests cannot pass the
// limit together.
import { config } from '../config';
import { currentTime } from '../time';
import { conditionHeld, updateItem } from '../table/records';
import type { Key } from '../table/keys';
import { SYSTEM_MAIL_BUDGET, systemMailBudgetKey } from '../system-mail/keys';

const windowMs = 3_600_000;

/** Places claimed in one hour's budget: give back those whose mail was not sent. */
export interface TestMailClaim {
  key: Key;
  count: number;
}

export type TestMailBudgetCheck = { allowed: true; claim: TestMailClaim } | { allowed: false; retryAfterSeconds: number };

/** Take `count` places in the account's test-mail budget for this hour, or say when the hour ends. */
export async function claimTestMails(accountId: number, count: number): Promise<TestMailBudgetCheck> {
  const now = currentTime();
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  const end = start + windowMs;
  const key = systemMailBudgetKey(accountId, new Date(start));
  const room = config().testMailsPerHour - count;
  if (room < 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((end - now.getTime()) / 1000)) };
  const claimed = await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: 'SET #entity = :entity, #expires = :expires ADD #test :count',
      ConditionExpression: 'attribute_not_exists(#test) OR #test <= :room',
      ExpressionAttributeNames: { '#entity': 'entity', '#expires': 'expires_at', '#test': 'test' },
      // The item expires an hour after its window closes, as the system-mail budget's does.
      ExpressionAttributeValues: { ':entity': SYSTEM_MAIL_BUDGET, ':expires': Math.floor(end / 1000) + windowMs / 1000, ':count': count, ':room': room },
    }),
  );
  return claimed ? { allowed: true, claim: { key, count } } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((end - now.getTime()) / 1000)) };
}

/** Give back `count` places of a claim whose mails were not sent. */
export async function releaseTestMails(claim: TestMailClaim, count: number): Promise<void> {
  if (count <= 0) return;
  await conditionHeld(
    updateItem({
      Key: claim.key,
      UpdateExpression: 'ADD #test :minus',
      // Only an existing counter: a release never creates an item without its expiry.
      ConditionExpression: 'attribute_exists(#test)',
      ExpressionAttributeNames: { '#test': 'test' },
      ExpressionAttributeValues: { ':minus': -count },
    }),
  );
}
