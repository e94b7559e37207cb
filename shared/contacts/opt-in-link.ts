// The double opt-in confirmation link's token: made when the confirmation mail is sent, read by the
// public confirmation page. It names the contact and the address mailed, so a link for an address the
// contact no longer has confirms nothing.
import { signToken, verifyToken, type TokenCheck } from '../signed-token';

const purpose = 'opt-in-confirmation';

export interface OptInClaims {
  accountId: number;
  contactId: number;
  email: string;
}

/**
 * The token never expires: a contact may confirm whenever it reads the mail, and it has no other way
 * to. The worst a leaked token does is confirm the one contact it was mailed to.
 */
export function signOptInConfirmation(claims: OptInClaims): string {
  return signToken(purpose, { account: claims.accountId, contact: claims.contactId, email: claims.email });
}

export type OptInCheck = { valid: true; claims: OptInClaims } | { valid: false; reason: Extract<TokenCheck, { valid: false }>['reason'] };

export function readOptInConfirmation(token: string | undefined): OptInCheck {
  const check = verifyToken(purpose, token);
  if (!check.valid) return check;
  const { account, contact, email } = check.claims;
  if (!Number.isSafeInteger(account) || !Number.isSafeInteger(contact) || typeof email !== 'string') return { valid: false, reason: 'malformed' };
  return { valid: true, claims: { accountId: account as number, contactId: contact as number, email } };
}
