// Limits of the public pages, per recipient link (the send and the address a signed token names), or
// per sender-confirmation link.
// Checked only once the token's signature holds, so a forged or random token costs no I/O at all;
// and a link already at its limit is refused after a read, so a storm on one link writes nothing.
import { createHash } from 'node:crypto';
import { config } from '../config';
import type { RecipientClaims } from './recipient-links';
import { encodeSendRef } from '../ledger/send-ref';
import { currentTime } from '../time';
import { linkRateKey } from '../rate-limits/keys';
import { countRequestBelow, requestsCounted } from '../rate-limits/repository';

/**
 * What a link's requests are counted for: its pages (preferences, one-click), or the open pixel, a
 * person's view apart from a machine's so a machine's fetch never uses up a person's open.
 */
export type LinkUse = 'pages' | 'open' | 'machine-open';

interface LinkWindow {
  limit: number;
  seconds: number;
}

/**
 * Opens count at most once per recipient and mail per hour: mail clients and image proxies fetch a
 * pixel again on every view, reload and prefetch, and each fetch must not cost a write.
 */
export const openCountWindowSeconds = 3600;

function windowOf(use: LinkUse): LinkWindow {
  return use === 'pages' ? { limit: config().publicRateLimit, seconds: 60 } : { limit: 1, seconds: openCountWindowSeconds };
}

/** A link's name in keys: a hash of what identifies it, so the address never appears in a key. */
function linkName(identity: string): string {
  return createHash('sha256').update(identity).digest('base64url').slice(0, 22);
}

export interface LinkAdmission {
  admitted: boolean;
  /** Whole seconds until the window ends (when refused). */
  retryAfterSeconds: number;
}

/** Count one request of a recipient link for `use`; refused (with no write) once the link's window is used up. */
export function takeLinkRequest(claims: RecipientClaims, use: LinkUse): Promise<LinkAdmission> {
  return takeAccountLinkRequest(claims.ref.accountId, `${encodeSendRef(claims.ref)}\n${claims.email.toLowerCase()}`, use);
}

/** The same for any link of an account's mail, named by what identifies it (a sender confirmation: its sender and address). */
export async function takeAccountLinkRequest(accountId: number, identity: string, use: LinkUse): Promise<LinkAdmission> {
  const { limit, seconds } = windowOf(use);
  const now = currentTime().getTime() / 1000;
  const windowStart = Math.floor(now / seconds) * seconds;
  const retryAfterSeconds = Math.max(1, Math.ceil(windowStart + seconds - now));
  const key = linkRateKey(accountId, linkName(identity), use, windowStart);
  if ((await requestsCounted(key)) >= limit) return { admitted: false, retryAfterSeconds };
  const counted = await countRequestBelow(key, limit, windowStart + seconds + 60);
  return { admitted: counted !== undefined, retryAfterSeconds };
}
