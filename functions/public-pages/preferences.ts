// The unsubscribe preferences page: shows the recipient's state on each displayed group and on the
// account's global list (GET), and applies the choice a form posts (POST), confirming it.
import { RecordNotFound } from '../../shared/table/errors';
import { isGloballyUnsubscribed } from '../../shared/suppressions/unsubscribes';
import { publicOperation } from '../../shared/http/pipeline';
import { choiceUnavailablePage, confirmationPage, preferencesPage } from './preferences-view';
import { applyPreference, displayedGroup, preferenceActions, recipientPreferences, type PreferenceAction } from './recipient-choices';
import { invalidLinkPage, linkLimitReply, readRecipientLink } from './recipient-link';

/** Also what `GET public/unsubscribe` answers: a client that opens the one-click URL gets this page. */
export const showPreferences = publicOperation(async ({ request }) => {
  const claims = readRecipientLink(request.query.token, request.requestId);
  if (!claims) return invalidLinkPage();
  const limited = await linkLimitReply(claims, 'html');
  if (limited) return limited;
  return preferencesPage(claims.email, request.query.token as string, await recipientPreferences(claims));
});

function isPreferenceAction(value: unknown): value is PreferenceAction {
  return preferenceActions.includes(value as PreferenceAction);
}

/** A form's group id: digits only, as the page writes it. */
function groupIdOf(value: unknown): number | undefined {
  return typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : undefined;
}

// The form is the page's own, so anything unexpected in it is answered with a page, not the API's JSON 422.
export const changePreferences = publicOperation(async ({ request }) => {
  const token = request.fields.token;
  const claims = readRecipientLink(token, request.requestId);
  if (!claims) return invalidLinkPage();
  const limited = await linkLimitReply(claims, 'html');
  if (limited) return limited;
  const signed = token as string;
  const action = request.fields.action;
  if (!isPreferenceAction(action)) return choiceUnavailablePage(signed);
  if (action === 'unsubscribe-all') {
    await applyPreference(claims, action, request.requestId);
    return confirmationPage(claims.email, signed, { action });
  }
  const groupId = groupIdOf(request.fields.group_id);
  const group = groupId === undefined ? undefined : await displayedGroup(claims, groupId);
  if (!group) return choiceUnavailablePage(signed);
  try {
    await applyPreference(claims, action, request.requestId, group.id);
  } catch (error) {
    // Deleted between the page's check and the write.
    if (error instanceof RecordNotFound) return choiceUnavailablePage(signed);
    throw error;
  }
  if (action === 'leave-group') return confirmationPage(claims.email, signed, { action, group });
  // Re-joining a group sends nothing while the global unsubscribe stands: the confirmation says so.
  const globallyUnsubscribed = await isGloballyUnsubscribed(claims.ref.accountId, claims.email);
  return confirmationPage(claims.email, signed, { action, group, globallyUnsubscribed });
});
