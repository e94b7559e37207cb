// The per-account budget of system mail (sender verification mail and send summaries): mail from the
// service's own address to addresses an account names, so an account could otherwise use it to mail
// anyone. One counter item per account and clock hour (UTC) holds the hour's count of every kind and
// of verification mail; a claim is one conditional UpdateItem ADD, so concurrent requests cannot pass
// the limit together. The item expires an hour after its window closes.
import { config } from '../config';
import { currentTime } from '../time';
import { conditionHeld, unlessConditionFails, updateItem } from '../table/records';
import { type Key } from '../table/keys';
import { SYSTEM_MAIL_BUDGET, systemMailBudgetKey } from './keys';

export type SystemMailKind = 'verification' | 'summary';

const windowMs = 3_600_000;

/** A claimed place in the budget: give it back with `releaseSystemMail` if the mail is not sent. */
export interface SystemMailClaim {
  key: Key;
  kind: SystemMailKind;
}

export type SystemMailBudgetCheck =
  | { allowed: true; claim: SystemMailClaim }
  | { allowed: false; retryAfterSeconds: number };

function windowOf(at: Date): { start: Date; end: Date } {
  const start = Math.floor(at.getTime() / windowMs) * windowMs;
  return { start: new Date(start), end: new Date(start + windowMs) };
}

/**
 * Take one place in the account's budget for a mail of `kind`, or say in how many seconds the
 * current hour ends when the budget is spent. Every kind counts against the total; verification mail
 * also against its own, smaller limit.
 */
export async function claimSystemMail(accountId: number, kind: SystemMailKind): Promise<SystemMailBudgetCheck> {
  const now = currentTime();
  const { start, end } = windowOf(now);
  const key = systemMailBudgetKey(accountId, start);
  const { systemMailsPerHour, systemMailVerificationsPerHour } = config();
  const verification = kind === 'verification';
  const claimed = await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: `SET #entity = :entity, #expires = :expires ADD #total :one${verification ? ', #verification :one' : ''}`,
      ConditionExpression: `(attribute_not_exists(#total) OR #total < :total)${
        verification ? ' AND (attribute_not_exists(#verification) OR #verification < :verifications)' : ''
      }`,
      ExpressionAttributeNames: {
        '#entity': 'entity',
        '#expires': 'expires_at',
        '#total': 'total',
        ...(verification ? { '#verification': 'verification' } : {}),
      },
      ExpressionAttributeValues: {
        ':entity': SYSTEM_MAIL_BUDGET,
        ':expires': Math.floor(end.getTime() / 1000) + windowMs / 1000,
        ':one': 1,
        ':total': systemMailsPerHour,
        ...(verification ? { ':verifications': systemMailVerificationsPerHour } : {}),
      },
    }),
  );
  if (claimed) return { allowed: true, claim: { key, kind } };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000)) };
}

/** Give back a place whose mail was not sent (refused or failed), so it does not count. */
export async function releaseSystemMail(claim: SystemMailClaim): Promise<void> {
  const verification = claim.kind === 'verification';
  await unlessConditionFails(
    updateItem({
      Key: claim.key,
      UpdateExpression: `ADD #total :minusOne${verification ? ', #verification :minusOne' : ''}`,
      // Only an existing counter: a release never creates an item without its expiry.
      ConditionExpression: 'attribute_exists(#total)',
      ExpressionAttributeNames: { '#total': 'total', ...(verification ? { '#verification': 'verification' } : {}) },
      ExpressionAttributeValues: { ':minusOne': -1 },
    }),
  );
}
