// Signed, single-purpose tokens for links in mail (sender confirmation, unsubscribe, open pixel):
// `base64url(payload).base64url(HMAC-SHA256(payload))`, checked in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { config } from './config';
import { currentTime } from './time';

/** What a token says: account id, record id, address... Values are plain so they survive JSON unchanged. */
export type TokenClaims = Record<string, string | number | boolean>;

export type TokenCheck =
  | { valid: true; claims: TokenClaims }
  | { valid: false; reason: 'malformed' | 'forged' | 'wrong-purpose' | 'expired' };

interface Payload {
  /** Format version, so the layout can change without old tokens being misread. */
  v: 1;
  /** Purpose: a confirmation token is not an unsubscribe token, even with the same claims. */
  p: string;
  /** Expiry in Unix seconds; absent for links that must work as long as the mail exists. */
  e?: number;
  c: TokenClaims;
}

const version = 1;
const purposePattern = /^[a-z][a-z0-9-]{0,62}$/;
const base64url = /^[A-Za-z0-9_-]+$/;
// Well above any token we issue; refusing longer input early keeps a hostile link cheap to reject.
const maxTokenLength = 2048;

function mac(encodedPayload: string): Buffer {
  return createHmac('sha256', config().tokenSigningKey).update(`v${version}.${encodedPayload}`, 'utf8').digest();
}

function nowSeconds(): number {
  return Math.floor(currentTime().getTime() / 1000);
}

function checkPurpose(purpose: string): void {
  if (!purposePattern.test(purpose)) throw new Error(`Token purpose must be lower-case kebab-case, got '${purpose}'`);
}

/**
 * A token for one purpose. Omit `ttlSeconds` only for links that must keep working for the life of
 * the mail (RFC 8058 unsubscribe, open pixel); anything that grants a change of state should expire.
 */
export function signToken(purpose: string, claims: TokenClaims, ttlSeconds?: number): string {
  checkPurpose(purpose);
  if (ttlSeconds !== undefined && (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0)) {
    throw new Error(`Token lifetime must be a positive whole number of seconds, got ${ttlSeconds}`);
  }
  const payload: Payload = { v: version, p: purpose, ...(ttlSeconds !== undefined ? { e: nowSeconds() + ttlSeconds } : {}), c: claims };
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${encoded}.${mac(encoded).toString('base64url')}`;
}

function isClaims(value: unknown): value is TokenClaims {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((claim) => ['string', 'number', 'boolean'].includes(typeof claim));
}

function decodePayload(encoded: string): Payload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object') return undefined;
    const payload = value as Partial<Payload>;
    if (payload.v !== version || typeof payload.p !== 'string' || !isClaims(payload.c)) return undefined;
    if (payload.e !== undefined && !Number.isSafeInteger(payload.e)) return undefined;
    return payload as Payload;
  } catch {
    return undefined;
  }
}

/**
 * Check a token for one purpose. The signature is checked before the payload is even parsed, so
 * nothing an attacker writes is interpreted unless this service signed it.
 */
export function verifyToken(purpose: string, token: string | undefined): TokenCheck {
  checkPurpose(purpose);
  if (!token || token.length > maxTokenLength) return { valid: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2) return { valid: false, reason: 'malformed' };
  const [encoded, signature] = parts as [string, string];
  if (!base64url.test(encoded) || !base64url.test(signature)) return { valid: false, reason: 'malformed' };
  const expected = mac(encoded);
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { valid: false, reason: 'forged' };
  // base64url decoding ignores stray trailing bits; insisting on the canonical form keeps one token per payload.
  if (presented.toString('base64url') !== signature) return { valid: false, reason: 'forged' };
  const payload = decodePayload(encoded);
  if (!payload) return { valid: false, reason: 'malformed' };
  if (payload.p !== purpose) return { valid: false, reason: 'wrong-purpose' };
  if (payload.e !== undefined && nowSeconds() >= payload.e) return { valid: false, reason: 'expired' };
  return { valid: true, claims: payload.c };
}
