// Tokens of format 1, made before tokens were sealed: `base64url(JSON).base64url(HMAC-SHA256)`,
// readable, without a key id. Links already mailed with them (recipient links, which must work as
// long as the mail is read; sender confirmations; automation step previews) are still accepted, with
// any key of the set. Kept apart from shared/signed-token.ts so functions that check no mailed link
// (list cursors are short-lived: an old one is simply refused) do not carry it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { claimsUntil, isClaims, isSealedToken, tokenKeys, verifyToken, type TokenCheck, type TokenClaims } from './signed-token';

const maxTokenLength = 2048;
const base64url = /^[A-Za-z0-9_-]+$/;

interface LegacyPayload {
  v: 1;
  p: string;
  e?: number;
  c: TokenClaims;
}

function decodeLegacyPayload(encoded: string): LegacyPayload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object') return undefined;
    const payload = value as Partial<LegacyPayload>;
    if (payload.v !== 1 || typeof payload.p !== 'string' || !isClaims(payload.c)) return undefined;
    if (payload.e !== undefined && !Number.isSafeInteger(payload.e)) return undefined;
    return payload as LegacyPayload;
  } catch {
    return undefined;
  }
}

function legacyMac(secret: string, encodedPayload: string): Buffer {
  return createHmac('sha256', secret).update(`v1.${encodedPayload}`, 'utf8').digest();
}

/**
 * A format-1 token (HMAC, no key id): accepted when any key of the set signed it. The signature is
 * checked before the payload is even parsed, so nothing an attacker writes is interpreted unless
 * this service signed it.
 */
function verifyLegacy(purpose: string, encoded: string, signature: string): TokenCheck {
  const presented = Buffer.from(signature, 'base64url');
  // The canonical form only, as for sealed tokens.
  if (presented.toString('base64url') !== signature) return { valid: false, reason: 'forged' };
  const signed = tokenKeys().all.some((key) => {
    const expected = legacyMac(key.secret, encoded);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  if (!signed) return { valid: false, reason: 'forged' };
  const payload = decodeLegacyPayload(encoded);
  if (!payload) return { valid: false, reason: 'malformed' };
  if (payload.p !== purpose) return { valid: false, reason: 'wrong-purpose' };
  return claimsUntil(payload.c, payload.e);
}

/** Check a token from a link in mail for one purpose: a sealed token, or a format-1 token mailed before sealing. */
export function verifyLinkToken(purpose: string, token: string | undefined): TokenCheck {
  if (!token || isSealedToken(token) || token.length > maxTokenLength) return verifyToken(purpose, token);
  const parts = token.split('.');
  if (parts.length !== 2 || !base64url.test(parts[0] as string) || !base64url.test(parts[1] as string)) return { valid: false, reason: 'malformed' };
  return verifyLegacy(purpose, parts[0] as string, parts[1] as string);
}
