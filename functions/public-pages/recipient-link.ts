// What the recipient pages share: reading the signed token from a link, the page for a refused link,
// the partly hidden address, and counting a recipient's unsubscribe on the send the link came from.
import { describeError, log } from '../../shared/log';
import { takeLinkRequest, type LinkAdmission } from '../../shared/public-links/page-limits';
import { verifyRecipientToken, type RecipientClaims } from '../../shared/public-links/recipient-links';
import { recordSendEvent, type SendEvent } from '../../shared/statistics/event-counts';
import { onFirstEngagement } from '../../shared/audience/engagement-events';
import type { EngagementKind } from '../../shared/ledger/keys';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { emitWebhookEvent } from '../../shared/webhook-delivery/events';
import { raw, type Reply } from '../../shared/http/reply';
import { htmlPage } from './page';

/** The token's claims, or undefined (logged with the reason, never the token) when it is refused. */
export function readRecipientLink(token: unknown, requestId: string): RecipientClaims | undefined {
  const check = verifyRecipientToken(typeof token === 'string' ? token : undefined);
  if (check.valid) return check.claims;
  log.info('recipient link refused', { requestId, reason: check.reason });
  return undefined;
}

// One text for every refused link, so the page tells nothing about why or whose link it was.
export function invalidLinkPage(): Reply {
  return htmlPage(400, {
    title: 'This link is not valid',
    paragraphs: [
      'The link you followed is incomplete or damaged. Open the link from the email again, making sure the whole address is copied.',
    ],
  });
}

/**
 * The address with most of its local part hidden (`r***r@example.com`): enough for the reader to
 * recognise it, little for anyone the mail was forwarded to.
 */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = email.slice(0, at);
  const hidden = local.length >= 3 ? `${local[0]}***${local[local.length - 1]}` : `${local[0]}***`;
  return `${hidden}${email.slice(at)}`;
}

/**
 * Count an event for the send the link came from. The recipient's change (or the pixel) must not
 * fail because a statistic could not be written, so a failure is logged and swallowed.
 */
export async function countRecipientEvent(claims: RecipientClaims, event: Extract<SendEvent, 'open' | 'unsubscribe'>, requestId: string): Promise<void> {
  try {
    const first = await recordSendEvent(claims.ref, event, claims.email, claims.variant);
    if (first && event === 'open') await followEngagement(claims, 'open', requestId);
  } catch (error) {
    log.error('recipient event not counted', { requestId, event, send: encodeSendRef(claims.ref), ...describeError(error) });
  }
  // The account's webhooks hear of it too (never throws; queues nothing when none subscribes).
  await emitWebhookEvent({ event, ref: claims.ref, email: claims.email });
}

/**
 * A person's first open or click of the mail moves the contacts in the account's engagement segments
 * (audience/engagement-events.ts). Logged, never thrown: the event itself is counted already.
 */
export async function followEngagement(claims: RecipientClaims, kind: EngagementKind, requestId: string): Promise<void> {
  try {
    await onFirstEngagement(claims.ref, claims.email, kind);
  } catch (error) {
    log.error('engagement segments not moved', { requestId, kind, send: encodeSendRef(claims.ref), ...describeError(error) });
  }
}

/**
 * The page for a link past its limit (429 with Retry-After), or undefined when the request may go on.
 * Counted per link, so one link's loop or prefetch storm never refuses another reader.
 */
export async function linkLimitReply(claims: RecipientClaims, format: 'html' | 'text'): Promise<Reply | undefined> {
  return limitReply(await takeLinkRequest(claims, 'pages'), format);
}

/** The answer to a link's request past its limit (429 with Retry-After), or undefined when it was admitted. */
export function limitReply(admission: LinkAdmission, format: 'html' | 'text'): Reply | undefined {
  if (admission.admitted) return undefined;
  const retryAfter = String(admission.retryAfterSeconds);
  if (format === 'text') {
    return raw({
      statusCode: 429,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': retryAfter },
      body: 'Too many requests for this link. Try again in a minute.\n',
    });
  }
  const page = htmlPage(429, { title: 'Too many requests', paragraphs: ['This link was opened too many times in a short while. Try again in a minute.'] });
  if (page.kind !== 'raw') return page;
  return raw({ ...page.result, headers: { ...page.result.headers, 'retry-after': retryAfter } });
}

/**
 * Whether this view of the pixel counts as an open: at most one per recipient and mail per hour (a
 * person's and a machine's each), so repeated views cost a read and no write. A failure counts
 * nothing and never fails the image.
 */
export async function admitOpen(claims: RecipientClaims, requestId: string, machine = false): Promise<boolean> {
  try {
    return (await takeLinkRequest(claims, machine ? 'machine-open' : 'open')).admitted;
  } catch (error) {
    log.error('open not checked', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
    return false;
  }
}
