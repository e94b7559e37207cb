// The unsubscribe lookups and writes other parts of the service call (sending, the unsubscribe and
// preferences pages, SES events), over the suppression lists of repository.ts.
import { addToSuppressionList, isSuppressed, removeFromSuppressionList, suppressedAmong } from './repository';

/** Whether the account has unsubscribed this address from all its mail. */
export function isGloballyUnsubscribed(accountId: number, email: string): Promise<boolean> {
  return isSuppressed({ accountId, groupId: null }, email);
}

/** Whether this address is in the account's unsubscribe group. */
export function isInUnsubscribeGroup(accountId: number, groupId: number, email: string): Promise<boolean> {
  return isSuppressed({ accountId, groupId }, email);
}

/** The addresses (lower-cased) among `addresses` on the account's global list. */
export function globallyUnsubscribedAmong(accountId: number, addresses: readonly string[]): Promise<Set<string>> {
  return suppressedAmong(accountId, addresses);
}

/** Unsubscribe an address from all the account's mail; idempotent. True when it was not listed before. */
export async function addGlobalUnsubscribe(accountId: number, email: string): Promise<boolean> {
  return (await addToSuppressionList({ accountId, groupId: null }, [email])).length > 0;
}

/** Put an address in an unsubscribe group; idempotent. True when it was not in the group before. */
export async function addToUnsubscribeGroup(accountId: number, groupId: number, email: string): Promise<boolean> {
  return (await addToSuppressionList({ accountId, groupId }, [email])).length > 0;
}

/** Take an address out of an unsubscribe group, so the group's mail reaches it again; idempotent. */
export function removeFromUnsubscribeGroup(accountId: number, groupId: number, email: string): Promise<boolean> {
  return removeFromSuppressionList({ accountId, groupId }, email);
}
