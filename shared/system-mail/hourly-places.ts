// Places in an account's hourly budget of one kind of mail (test mails, confirmation mails), counted
// on the account's system-mail counter item of the clock hour (UTC) in an attribute of the kind's own:
// one kind neither uses up nor is held back by another. A claim is one conditional UpdateItem ADD, so
// concurrent claims cannot pass the limit together.
import { currentTime } from '../time';
import { conditionHeld, updateItem } from '../table/records';
import type { Key } from '../table/keys';
import { SYSTEM_MAIL_BUDGET, systemMailBudgetKey } from './keys';

const windowMs = 3_600_000;

export type HourlyPlacesCheck = { allowed: true; key: Key } | { allowed: false; windowEnds: Date };

/** Take `count` places of `attribute` in this hour's item, at most `limit` in the hour, or say when the hour ends. */
export async function claimHourlyPlaces(accountId: number, attribute: string, count: number, limit: number): Promise<HourlyPlacesCheck> {
  const start = Math.floor(currentTime().getTime() / windowMs) * windowMs;
  const end = start + windowMs;
  const key = systemMailBudgetKey(accountId, new Date(start));
  const room = limit - count;
  if (room < 0) return { allowed: false, windowEnds: new Date(end) };
  const claimed = await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: 'SET #entity = :entity, #expires = :expires ADD #places :count',
      ConditionExpression: 'attribute_not_exists(#places) OR #places <= :room',
      ExpressionAttributeNames: { '#entity': 'entity', '#expires': 'expires_at', '#places': attribute },
      // The item expires an hour after its window closes, as the system-mail budget's does.
      ExpressionAttributeValues: { ':entity': SYSTEM_MAIL_BUDGET, ':expires': Math.floor(end / 1000) + windowMs / 1000, ':count': count, ':room': room },
    }),
  );
  return claimed ? { allowed: true, key } : { allowed: false, windowEnds: new Date(end) };
}

/** Give back `count` places of `attribute` whose mails were not sent. */
export async function releaseHourlyPlaces(key: Key, attribute: string, count: number): Promise<void> {
  if (count <= 0) return;
  await conditionHeld(
    updateItem({
      Key: key,
      UpdateExpression: 'ADD #places :minus',
      // Only an existing counter: a release never creates an item without its expiry.
      ConditionExpression: 'attribute_exists(#places)',
      ExpressionAttributeNames: { '#places': attribute },
      ExpressionAttributeValues: { ':minus': -count },
    }),
  );
}
