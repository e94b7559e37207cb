// The click endpoint of tracked links: a 302 to the link's original target when the link is one we
// signed (never anywhere else: no open redirect), and the click counted for the recipient and the
// send the mail came from.
import { describeError, log } from '../../shared/log';
import { raw } from '../../shared/http/reply';
import { publicOperation } from '../../shared/http/pipeline';
import { takeLinkRequest } from '../../shared/public-links/page-limits';
import { isHttpTarget, isSignedClick } from '../../shared/rendering/click-tracking';
import type { RecipientClaims } from '../../shared/public-links/recipient-links';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { recordClick } from '../../shared/statistics/event-counts';
import { emitWebhookEvent } from '../../shared/webhook-delivery/events';
import { invalidLinkPage, readRecipientLink } from './recipient-link';

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * Whether this click counts: within the link's limit of the recipient pages (per send and recipient,
 * per minute), so a loop or a scanner storm on one link writes nothing past it. The reader is
 * redirected either way. A failure counts nothing and never fails the redirect.
 */
async function admitClick(claims: RecipientClaims, requestId: string): Promise<boolean> {
  try {
    return (await takeLinkRequest(claims, 'pages')).admitted;
  } catch (error) {
    log.error('click not checked', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
    return false;
  }
}

/**
 * Count the click (statistics/event-counts.ts): the one place where a click has been counted, so whatever else
 * follows a click (a webhook) goes right after it. A failure is logged, never fails the redirect.
 */
async function countClick(claims: RecipientClaims, target: string, requestId: string): Promise<boolean> {
  try {
    // False when the send or step is gone: nothing was counted.
    return await recordClick(claims.ref, claims.email, target);
  } catch (error) {
    log.error('click not counted', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
    return false;
  }
}

/** `GET public/click?token=&url=&sig=`: the signature binds `url` to `token`; anything else is refused with the invalid-link page. */
export const followClick = publicOperation(async ({ request }) => {
  const token = text(request.query.token);
  const target = text(request.query.url);
  if (!isSignedClick(token, target, text(request.query.sig)) || !isHttpTarget(target)) {
    log.info('click link refused', { requestId: request.requestId, reason: 'signature' });
    return invalidLinkPage();
  }
  const claims = readRecipientLink(token, request.requestId);
  if (!claims) return invalidLinkPage();
  // A counted click is told to the account's webhooks too (never throws; queues nothing when none subscribes).
  if ((await admitClick(claims, request.requestId)) && (await countClick(claims, target, request.requestId))) {
    await emitWebhookEvent({ event: 'click', ref: claims.ref, email: claims.email, url: target });
  }
  return raw({
    statusCode: 302,
    headers: {
      // The URL object's form: percent-encoded, so any target the design held is a valid header.
      location: new URL(target).href,
      // Every click must reach us to be counted; the target never learns the tracked link (it holds the token).
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
    body: '',
  });
});
