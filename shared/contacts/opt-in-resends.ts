// The pace of confirmation-mail resends: one small item per contact resent one within the last hour,
// put only while there is none younger, and removed by the table's TTL after that. It lives beside
// the contact, not on it, so a resend never rewrites the contact item (nor what follows such a write).
import { currentTime, isoTimestamp } from '../time';
import { entityKey, type Key } from '../table/keys';
import { conditionHeld, deleteItem, getItem, putItem } from '../table/records';

const OPT_IN_RESEND = 'opt-in-resend';

/** The least time between two resends of one contact's confirmation mail. */
export const optInResendIntervalSeconds = 3_600;

export function optInResendKey(accountId: number, contactId: number): Key {
  return entityKey(accountId, OPT_IN_RESEND, contactId);
}

export type OptInResendClaim = { claimed: true; key: Key; resentAt: string } | { claimed: false; retryAfterSeconds: number };

const epochSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Take this hour's resend of the contact, unless one was taken less than an hour ago (then the whole
 * seconds until the next may be taken). One conditional put: two concurrent resends cannot both pass.
 */
export async function claimOptInResend(accountId: number, contactId: number): Promise<OptInResendClaim> {
  const now = currentTime();
  const key = optInResendKey(accountId, contactId);
  const resentAt = isoTimestamp(now);
  const claimed = await conditionHeld(
    putItem({
      Item: { ...key, entity: OPT_IN_RESEND, contact_id: contactId, resent_at: resentAt, expires_at: Math.ceil(now.getTime() / 1000) + optInResendIntervalSeconds },
      // TTL removes an expired item only eventually (within days): one past its hour counts as gone.
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
      ExpressionAttributeValues: { ':now': epochSeconds(now) },
    }),
  );
  if (claimed) return { claimed: true, key, resentAt };
  const held = await getItem(key, { consistent: true });
  return { claimed: false, retryAfterSeconds: Math.max(1, Number(held?.expires_at ?? 0) - epochSeconds(now)) };
}

/** Give back a resend that queued nothing (its write failed), unless a later resend has taken its place. */
export async function releaseOptInResend(claim: { key: Key; resentAt: string }): Promise<void> {
  await conditionHeld(deleteItem({ Key: claim.key, ConditionExpression: 'resent_at = :resent', ExpressionAttributeValues: { ':resent': claim.resentAt } }));
}
