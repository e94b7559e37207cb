// The page a double opt-in confirmation mail links to. Opening the link (GET) only shows a button;
// the button's form POSTs the token back and that confirms the contact. Mail scanners and link
// previews fetch links but do not submit forms, so they confirm nobody.
import { readOptInConfirmation, type OptInClaims } from '../../shared/contacts/opt-in-link';
import { confirmOptIn } from '../../shared/audience/opt-in-confirm';
import { getContact } from '../../shared/contacts/repository';
import { takeAccountLinkRequest } from '../../shared/public-links/page-limits';
import { RecordNotFound } from '../../shared/table/errors';
import { publicOperation } from '../../shared/http/pipeline';
import type { Reply } from '../../shared/http/reply';
import { escapeHtml } from '../../shared/mail/templates/html';
import { log } from '../../shared/log';
import { htmlFrame, htmlPage } from './page';
import { invalidLinkPage, limitReply, maskedAddress } from './recipient-link';

const confirmedPage = (email: string) =>
  htmlPage(200, { title: 'Subscription confirmed', paragraphs: [`Thank you. ${maskedAddress(email)} is subscribed.`] });

// Relative, so the form posts to the page's own path and origin (the CSP allows only that).
function confirmForm(email: string, token: string): Reply {
  return htmlFrame(
    200,
    'Confirm your subscription',
    `<p>Confirm that you want to receive email at ${escapeHtml(maskedAddress(email))}.</p>
<form method="post" action="confirm">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button class="primary" type="submit">Confirm my subscription</button>
</form>
<p>If you did not ask for this, close this page: you will not be subscribed.</p>`,
  );
}

function readLink(token: unknown, requestId: string): OptInClaims | undefined {
  const check = readOptInConfirmation(typeof token === 'string' ? token : undefined);
  if (check.valid) return check.claims;
  log.info('opt-in confirmation refused', { requestId, reason: check.reason });
  return undefined;
}

/** The 429 page past the public pages' per-link limit, counted once the token holds (forged links cost no I/O). */
async function linkLimit(claims: OptInClaims): Promise<Reply | undefined> {
  return limitReply(await takeAccountLinkRequest(claims.accountId, `opt-in\n${claims.contactId}\n${claims.email.toLowerCase()}`, 'pages'), 'html');
}

/** GET: the button; nothing is written. */
export const showOptInConfirmation = publicOperation(
  async ({ request }) => {
    const token = request.query.token;
    const claims = readLink(token, request.requestId);
    if (!claims) return invalidLinkPage();
    const limited = await linkLimit(claims);
    if (limited) return limited;
    try {
      const contact = await getContact(claims.accountId, claims.contactId);
      // Deleted, or at another address than the one mailed: the link confirms nothing, and says nothing of why.
      if (contact.email !== claims.email) return invalidLinkPage();
      if (contact.subscription_status === 'confirmed') return confirmedPage(claims.email);
    } catch (error) {
      if (error instanceof RecordNotFound) return invalidLinkPage();
      throw error;
    }
    return confirmForm(claims.email, token as string);
  },
  { readBody: false },
);

/** POST (the button): confirm the contact. A second press answers the same page. */
export const confirmOptInSubscription = publicOperation(async ({ request }) => {
  const claims = readLink(request.fields.token, request.requestId);
  if (!claims) return invalidLinkPage();
  const limited = await linkLimit(claims);
  if (limited) return limited;
  const outcome = await confirmOptIn(claims.accountId, claims.contactId, claims.email);
  if (outcome === 'gone') {
    log.info('opt-in confirmation refused', { requestId: request.requestId, reason: 'contact-gone' });
    return invalidLinkPage();
  }
  return confirmedPage(claims.email);
});
