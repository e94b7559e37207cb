// The page a sender's verification mail links to. Opening the link (GET) only shows a button; the
// button's form POSTs the token back and that verifies the sender. Mail scanners and link previews
// fetch links but do not submit forms, so they can no longer confirm an address for its owner.
import { readSenderConfirmation, type SenderConfirmationClaims } from '../../shared/senders/confirmation';
import { takeAccountLinkRequest } from '../../shared/public-links/page-limits';
import { RecordNotFound } from '../../shared/table/errors';
import { getSender } from '../../shared/senders/repository';
import { verifySender } from '../../shared/sender-verification/confirmation-service';
import { publicOperation } from '../../shared/http/pipeline';
import type { Reply } from '../../shared/http/reply';
import { escapeHtml } from '../../shared/mail/templates/html';
import { log } from '../../shared/log';
import { htmlFrame, htmlPage } from './page';
import { limitReply } from './recipient-link';

// One text for every refused link, so the page tells nothing about why or about whose link it was.
const invalidLink = () =>
  htmlPage(400, {
    title: 'This link is invalid or has expired',
    paragraphs: ['The confirmation link is invalid or has expired. Ask for a new verification mail and use the link in it.'],
  });

const senderGone = () =>
  htmlPage(404, {
    title: 'Sender not found',
    paragraphs: ['This sender no longer exists, so there is nothing to confirm.'],
  });

const confirmed = (email: string) =>
  htmlPage(200, {
    title: 'Sender address confirmed',
    paragraphs: [`Thank you. The address ${email} is confirmed and can now be used to send email.`],
  });

// Relative, so the form posts to the page's own path and origin (the CSP allows only that).
function confirmForm(email: string, token: string): Reply {
  return htmlFrame(
    200,
    'Confirm your sender address',
    `<p>Confirm that you want ${escapeHtml(email)} to be used as a sender address.</p>
<form method="post" action="confirm">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button class="primary" type="submit">Confirm sender address</button>
</form>
<p>If you did not ask for this, close this page; the address will not be used.</p>`,
  );
}

function readLink(token: unknown, requestId: string): SenderConfirmationClaims | undefined {
  const check = readSenderConfirmation(typeof token === 'string' ? token : undefined);
  if (check.valid) return check.claims;
  log.info('sender confirmation refused', { requestId, reason: check.reason });
  return undefined;
}

/**
 * The 429 page for a link past the public pages' per-link limit, or undefined. Counted only once the
 * token holds, so forged links cost no I/O; per link, so one link's loop never refuses another's.
 */
async function linkLimit(claims: SenderConfirmationClaims): Promise<Reply | undefined> {
  const identity = `sender-confirmation\n${claims.senderId}\n${claims.email.toLowerCase()}`;
  return limitReply(await takeAccountLinkRequest(claims.accountId, identity, 'pages'), 'html');
}

/** GET: what the link would confirm, with the button; nothing is written. */
export const showSenderConfirmation = publicOperation(
  async ({ request }) => {
    const token = request.query.token;
    const claims = readLink(token, request.requestId);
    if (!claims) return invalidLink();
    const limited = await linkLimit(claims);
    if (limited) return limited;
    try {
      const sender = await getSender(claims.accountId, claims.senderId);
      if (sender.from_email !== claims.email) {
        log.info('sender confirmation refused', { requestId: request.requestId, reason: 'address-changed' });
        return invalidLink();
      }
      if (sender.is_verified === 1) {
        return htmlPage(200, { title: 'Sender address confirmed', paragraphs: [`The address ${claims.email} is already confirmed.`] });
      }
    } catch (error) {
      if (error instanceof RecordNotFound) return senderGone();
      throw error;
    }
    return confirmForm(claims.email, token as string);
  },
  { readBody: false },
);

/** POST (the button): verify the sender. */
export const confirmSender = publicOperation(async ({ request }) => {
  const claims = readLink(request.fields.token, request.requestId);
  if (!claims) return invalidLink();
  const limited = await linkLimit(claims);
  if (limited) return limited;
  const { accountId, senderId, email } = claims;
  try {
    // Verifies the sender and releases the single sends that waited for it.
    const outcome = await verifySender(accountId, senderId, email);
    if (outcome === 'address-changed') {
      log.info('sender confirmation refused', { requestId: request.requestId, reason: 'address-changed' });
      return invalidLink();
    }
  } catch (error) {
    if (error instanceof RecordNotFound) return senderGone();
    throw error;
  }
  // A second press lands here too (already verified): confirming is idempotent.
  return confirmed(email);
});
