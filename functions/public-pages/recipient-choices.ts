// What a recipient can see and change from a link in their mail: their state on each displayed
// unsubscribe group and on the account's global list, and the changes that count as an unsubscribe.
import { addGlobalUnsubscribe, addToUnsubscribeGroup, isGloballyUnsubscribed, isInUnsubscribeGroup, removeFromUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { listDisplayedUnsubscribeGroups, type UnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import type { RecipientClaims } from '../../shared/public-links/recipient-links';
import { countRecipientEvent } from './recipient-link';

export interface GroupChoice {
  group: UnsubscribeGroup;
  /** Whether the address is in the group, i.e. gets none of its mail. */
  unsubscribed: boolean;
}

export interface RecipientPreferences {
  globallyUnsubscribed: boolean;
  groups: GroupChoice[];
}

export type PreferenceAction = 'leave-group' | 'rejoin-group' | 'unsubscribe-all';

export const preferenceActions: readonly PreferenceAction[] = ['leave-group', 'rejoin-group', 'unsubscribe-all'];

/** The address's state on every group the account shows on this page, and on its global list. */
export async function recipientPreferences(claims: RecipientClaims): Promise<RecipientPreferences> {
  const { accountId } = claims.ref;
  const [globallyUnsubscribed, groups] = await Promise.all([
    isGloballyUnsubscribed(accountId, claims.email),
    listDisplayedUnsubscribeGroups(accountId),
  ]);
  const states = await Promise.all(groups.map((group) => isInUnsubscribeGroup(accountId, group.id, claims.email)));
  return { globallyUnsubscribed, groups: groups.map((group, i) => ({ group, unsubscribed: states[i] === true })) };
}

/** The displayed group with this id, or undefined: a recipient may only change what the page offers. */
export async function displayedGroup(claims: RecipientClaims, groupId: number): Promise<UnsubscribeGroup | undefined> {
  const groups = await listDisplayedUnsubscribeGroups(claims.ref.accountId);
  return groups.find((group) => group.id === groupId);
}

/**
 * Apply one choice. Leaving a group or the whole account counts one unsubscribe on the send the link
 * came from, the first time only (statistics keep a marker per recipient); re-joining uncounts nothing.
 * Throws RecordNotFound when the group was deleted meanwhile.
 */
export async function applyPreference(claims: RecipientClaims, action: PreferenceAction, requestId: string, groupId?: number): Promise<void> {
  const { accountId } = claims.ref;
  let unsubscribed = false;
  if (action === 'unsubscribe-all') unsubscribed = await addGlobalUnsubscribe(accountId, claims.email);
  else if (groupId === undefined) throw new Error(`Preference action ${action} needs a group`);
  else if (action === 'leave-group') unsubscribed = await addToUnsubscribeGroup(accountId, groupId, claims.email);
  else await removeFromUnsubscribeGroup(accountId, groupId, claims.email);
  if (unsubscribed) await countRecipientEvent(claims, 'unsubscribe', requestId);
}
