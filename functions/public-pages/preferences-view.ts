// The HTML of the unsubscribe preferences page and its confirmations: plain forms that post back to
// the page, no JavaScript, every piece of text escaped.
import type { UnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import type { Reply } from '../../shared/http/reply';
import { escapeHtml } from '../../shared/mail/templates/html';
import { htmlFrame } from './page';
import type { GroupChoice, RecipientPreferences } from './recipient-choices';
import { maskedAddress } from './recipient-link';

// Relative, so the form posts to the page's own origin (the CSP allows only that) whether it was
// reached as `public/preferences` or `public/unsubscribe`.
const formAction = 'preferences';

function hiddenToken(token: string): string {
  return `<input type="hidden" name="token" value="${escapeHtml(token)}">`;
}

function backLink(token: string): string {
  return `<p><a href="${escapeHtml(`${formAction}?token=${encodeURIComponent(token)}`)}">Back to your email preferences</a></p>`;
}

function groupItem(choice: GroupChoice, token: string): string {
  const { group, unsubscribed } = choice;
  const name = escapeHtml(group.group_name);
  const describedBy = `group-${group.id}-state`;
  const button = unsubscribed
    ? `<button type="submit" name="action" value="rejoin-group" aria-describedby="${describedBy}">Subscribe again to ${name}</button>`
    : `<button type="submit" name="action" value="leave-group" aria-describedby="${describedBy}">Unsubscribe from ${name}</button>`;
  return `<li>
<form method="post" action="${formAction}">
${hiddenToken(token)}
<input type="hidden" name="group_id" value="${group.id}">
<h3>${name}</h3>
${group.description ? `<p>${escapeHtml(group.description)}</p>\n` : ''}<p class="state" id="${describedBy}">Status: <strong>${unsubscribed ? 'Unsubscribed' : 'Subscribed'}</strong></p>
${button}
</form>
</li>`;
}

export function preferencesPage(email: string, token: string, preferences: RecipientPreferences): Reply {
  const parts = [`<p>Email preferences for <strong>${escapeHtml(maskedAddress(email))}</strong>.</p>`];
  if (preferences.groups.length > 0) {
    parts.push(
      '<h2 id="topics">Topics</h2>',
      '<p>Choose the kinds of email you want to stop (or start again).</p>',
      `<ul class="choices" aria-labelledby="topics">\n${preferences.groups.map((choice) => groupItem(choice, token)).join('\n')}\n</ul>`,
    );
  }
  parts.push('<h2 id="everything">All email</h2>');
  if (preferences.globallyUnsubscribed) {
    parts.push('<p role="status"><strong>You are unsubscribed from all email from this sender.</strong> None of the topics above will be sent to you.</p>');
  } else {
    parts.push(
      `<form method="post" action="${formAction}" aria-labelledby="everything">
${hiddenToken(token)}
<p id="everything-help">Stop every email from this sender, whatever the topic.</p>
<button class="primary" type="submit" name="action" value="unsubscribe-all" aria-describedby="everything-help">Unsubscribe from everything</button>
</form>`,
    );
  }
  return htmlFrame(200, 'Email preferences', parts.join('\n'));
}

export type Confirmation =
  | { action: 'leave-group'; group: UnsubscribeGroup }
  | { action: 'rejoin-group'; group: UnsubscribeGroup; globallyUnsubscribed: boolean }
  | { action: 'unsubscribe-all' };

export function confirmationPage(email: string, token: string, confirmation: Confirmation): Reply {
  const address = `<strong>${escapeHtml(maskedAddress(email))}</strong>`;
  if (confirmation.action === 'unsubscribe-all') {
    return htmlFrame(200, 'You are unsubscribed from everything', `<p role="status">${address} will no longer receive any email from this sender.</p>\n${backLink(token)}`);
  }
  const name = `<strong>${escapeHtml(confirmation.group.group_name)}</strong>`;
  if (confirmation.action === 'leave-group') {
    return htmlFrame(200, 'You are unsubscribed', `<p role="status">${address} will no longer receive ${name} email.</p>\n${backLink(token)}`);
  }
  const stillBlocked = confirmation.globallyUnsubscribed
    ? '\n<p>You are still unsubscribed from all email from this sender, so nothing will arrive while that is in place.</p>'
    : '';
  return htmlFrame(200, 'You are subscribed again', `<p role="status">${address} will receive ${name} email again.</p>${stillBlocked}\n${backLink(token)}`);
}

/** A well-formed link whose form asked for something the page does not offer (or no longer does). */
export function choiceUnavailablePage(token: string): Reply {
  return htmlFrame(
    400,
    'This choice is not available',
    `<p>The choice you sent is not one this page offers, or the topic no longer exists. Nothing was changed.</p>\n${backLink(token)}`,
  );
}
