// The sender confirmation link's token: made when the verification mail is sent, read by the public
// confirmation page. The address is among the claims, so a link for an old address verifies nothing new.
import { verifyLinkToken } from '../legacy-tokens';
import { signToken, type TokenCheck } from '../signed-token';

const purpose = 'sender-confirmation';

/** Long enough for a mail read the next day, short enough that an old mail is not a standing key. */
export const senderConfirmationValidHours = 48;

export interface SenderConfirmationClaims {
  accountId: number;
  senderId: number;
  email: string;
}

export function signSenderConfirmation(claims: SenderConfirmationClaims): string {
  return signToken(purpose, { account: claims.accountId, sender: claims.senderId, email: claims.email }, senderConfirmationValidHours * 3600);
}

export type SenderConfirmationCheck =
  | { valid: true; claims: SenderConfirmationClaims }
  | { valid: false; reason: Extract<TokenCheck, { valid: false }>['reason'] };

export function readSenderConfirmation(token: string | undefined): SenderConfirmationCheck {
  const check = verifyLinkToken(purpose, token);
  if (!check.valid) return check;
  const { account, sender, email } = check.claims;
  // Only this service signs, so a wrong shape means a bug or an old format, never an attacker.
  if (!Number.isSafeInteger(account) || !Number.isSafeInteger(sender) || typeof email !== 'string') {
    return { valid: false, reason: 'malformed' };
  }
  return { valid: true, claims: { accountId: account as number, senderId: sender as number, email } };
}
