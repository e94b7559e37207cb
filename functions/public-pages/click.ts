// The click endpoint of tracked links: a 302 to the link's original target when the link is one we
// signed (never anywhere else: no open redirect), and the click counted for the recipient and the
// send the mail came from: a person's, or a bot's (statistics/engagement-rules.ts), redirected alike.
import { describeError, log } from '../../shared/log';
import { raw } from '../../shared/http/reply';
import { publicOperation } from '../../shared/http/pipeline';
import { takeLinkRequest } from '../../shared/public-links/page-limits';
import { isHttpTarget, signedClickKind } from '../../shared/rendering/click-tracking';
import type { RecipientClaims } from '../../shared/public-links/recipient-links';
import { readLedgerEntry } from '../../shared/ledger/repository';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { botClickRule, type ClickFacts } from '../../shared/statistics/engagement-rules';
import { recordBotClick, recordClickOf } from '../../shared/statistics/event-counts';
import { currentTime } from '../../shared/time';
import { emitWebhookEvent } from '../../shared/webhook-delivery/events';
import { followEngagement, invalidLinkPage, readRecipientLink } from './recipient-link';

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
 * When the recipient's mail was sent, in epoch ms: its ledger entry's claim, made right before SES was
 * called (strongly consistent: a scanner's click may come within a second of it). Undefined when the
 * ledger holds no entry (a mail over 400 days old) or it cannot be read: no timing rule applies then.
 */
async function sentAt(claims: RecipientClaims, requestId: string): Promise<number | undefined> {
  try {
    const entry = await readLedgerEntry(claims.ref, claims.email);
    return entry && entry.claimedAt > 0 ? entry.claimedAt : undefined;
  } catch (error) {
    log.error('send time not read', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
    return undefined;
  }
}

/**
 * Count the click (statistics/event-counts.ts): the one place where a click has been counted, so whatever else
 * follows a click (a webhook) goes right after it. A failure is logged, never fails the redirect.
 */
async function countClick(claims: RecipientClaims, target: string, bot: boolean, requestId: string): Promise<boolean> {
  try {
    // False when the send or step is gone: nothing was counted.
    if (bot) return await recordBotClick(claims.ref);
    const { counted, first } = await recordClickOf(claims.ref, claims.email, target, claims.variant);
    if (first) await followEngagement(claims, 'click', requestId);
    return counted;
  } catch (error) {
    log.error('click not counted', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
    return false;
  }
}

/**
 * `GET` (or `HEAD`) `public/click?token=&url=&sig=`: the signature binds `url` to `token`, for a tracked
 * link or the hidden link; anything else is refused with the invalid-link page.
 */
export const followClick = publicOperation(async ({ request }) => {
  const clickedAt = currentTime().getTime();
  const token = text(request.query.token);
  const target = text(request.query.url);
  const kind = signedClickKind(token, target, text(request.query.sig));
  if (kind === undefined || !isHttpTarget(target)) {
    log.info('click link refused', { requestId: request.requestId, reason: 'signature' });
    return invalidLinkPage();
  }
  const claims = readRecipientLink(token, request.requestId);
  if (!claims) return invalidLinkPage();
  // A request without the header sent an empty User-Agent.
  const facts: ClickFacts = { method: request.method, userAgent: request.headers['user-agent'] ?? '', hiddenLink: kind === 'hidden' };
  // The send time is read (beside the link's limit, not after it) only for a click no other rule settled.
  const settled = botClickRule(facts);
  const [admitted, sent] = await Promise.all([admitClick(claims, request.requestId), settled === undefined ? sentAt(claims, request.requestId) : undefined]);
  const bot = (settled ?? botClickRule({ ...facts, sinceSent: sent === undefined ? undefined : clickedAt - sent })) !== undefined;
  // A counted click is told to the account's webhooks too (never throws; queues nothing when none subscribes).
  if (admitted && (await countClick(claims, target, bot, request.requestId))) {
    await emitWebhookEvent({ event: 'click', ref: claims.ref, email: claims.email, url: target, machine: bot });
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
