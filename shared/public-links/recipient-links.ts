// The recipient's links in every marketing mail (open pixel, preferences page, RFC 8058 one-click
// unsubscribe), all carrying one sealed token that names the send, the address and the send's group.
import { verifyLinkToken } from '../legacy-tokens';
import { signToken, type TokenCheck } from '../signed-token';
import { config } from '../config';
import { decodeSendRef, encodeSendRef, type SendRef } from '../ledger/send-ref';

const purpose = 'recipient';

/** What a recipient token says about the mail it came in. */
export interface RecipientClaims {
  ref: SendRef;
  /** The address the mail went to, as it was sent. */
  email: string;
  /** The send's unsubscribe group, or null when the send has none. */
  groupId: number | null;
  /** The subject the mail had when it was part of an A/B test's share (its index); absent otherwise. */
  variant?: number;
}

export type RecipientTokenCheck =
  | { valid: true; claims: RecipientClaims }
  | { valid: false; reason: Extract<TokenCheck, { valid: false }>['reason'] };

/**
 * The token for one recipient of one send. It never expires: RFC 8058 and CAN-SPAM expect an
 * unsubscribe link to keep working for at least 30 days after the mail, and a mail read a year later
 * must still let its reader leave. It is sealed (shared/signed-token.ts): nobody can read the address
 * or the send from it, forge it or move it to another address, and it keeps working when the key is
 * rotated. The worst a leaked token does is unsubscribe (or re-subscribe) the one address it was sent to.
 */
export function recipientToken(ref: SendRef, email: string, groupId: number | null, variant?: number): string {
  // The account is in the send's reference; tokens mailed before sealing also carry it as `a`.
  return signToken(purpose, {
    s: encodeSendRef(ref),
    e: email,
    // A claim cannot be null; a send without a group simply has no `g`.
    ...(groupId !== null ? { g: groupId } : {}),
    // Only a mail of an A/B test's share: its opens and clicks count toward its subject without a read.
    ...(variant !== undefined ? { v: variant } : {}),
  });
}

function decodedRef(text: string): SendRef | undefined {
  try {
    return decodeSendRef(text);
  } catch {
    return undefined;
  }
}

/** Check a token from a link; anything not signed by this service for a recipient is refused. */
export function verifyRecipientToken(token: string | undefined): RecipientTokenCheck {
  const check = verifyLinkToken(purpose, token);
  if (!check.valid) return check;
  const { a, s, e, g, v } = check.claims;
  // Only this service signs, so a wrong shape means a bug or an old format, never an attacker.
  if ((a !== undefined && !Number.isSafeInteger(a)) || typeof s !== 'string' || typeof e !== 'string' || e === '') return { valid: false, reason: 'malformed' };
  if (g !== undefined && !Number.isSafeInteger(g)) return { valid: false, reason: 'malformed' };
  if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) >= 0)) return { valid: false, reason: 'malformed' };
  const ref = decodedRef(s);
  if (!ref || (a !== undefined && ref.accountId !== a)) return { valid: false, reason: 'malformed' };
  return { valid: true, claims: { ref, email: e, groupId: g === undefined ? null : (g as number), ...(v !== undefined ? { variant: v as number } : {}) } };
}

function publicUrl(path: string, token: string): string {
  return `${config().publicBaseUrl}${path}?token=${encodeURIComponent(token)}`;
}

/** The unsubscribe preferences page (HTML forms, works without JavaScript). */
export function preferencesUrl(token: string): string {
  return publicUrl('public/preferences', token);
}

/** The `List-Unsubscribe` URL: a POST of `List-Unsubscribe=One-Click` unsubscribes (RFC 8058); a GET shows the preferences page. */
export function oneClickUnsubscribeUrl(token: string): string {
  return publicUrl('public/unsubscribe', token);
}

/** The open-tracking pixel: always a 1x1 transparent GIF; a valid token counts an open. */
export function openPixelUrl(token: string): string {
  return publicUrl('public/open', token);
}
