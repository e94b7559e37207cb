// Tokens for links in mail and for cursors (recipient links, sender confirmation, list cursors,
// automation step previews). A token is sealed: AES-256-GCM over its claims, with a key derived
// (HKDF) from the configured key for its purpose alone, so nobody can read, forge or re-purpose it:
//
//   `2<key id>.base64url(iv[12] ‖ ciphertext ‖ tag[16])`, the plaintext being JSON `[claims, expiry?]`
//
// The key id names the key of the set it was made with, so rotating the key breaks no link already
// mailed. Links mailed before sealing (format 1) are checked by shared/legacy-tokens.ts.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { config } from './config';
import { keyIdLength, keySetting, parseKeySetting, type KeySet, type SettingKey } from './key-set';
import { currentTime } from './time';

// ---- The keys. The setting (the secret's value deployed, TOKEN_SIGNING_KEY locally) is one key as a
// plain string, or a key set for rotation (shared/key-set.ts). Tokens are made with the current key
// and verified with whichever key of the set they name, so rotating breaks no link already mailed.

export type TokenKey = SettingKey;
export type TokenKeys = KeySet;
export const tokenKeyIdLength = keyIdLength;

/** The keys a setting holds: a key set when it is JSON (starts with `{`), else one plain key. */
export function parseTokenKeys(value: string): TokenKeys {
  return parseKeySetting('TOKEN_SIGNING_KEY', value);
}

/** The configured keys; a mistaken new value is logged and the keys read before stay in use, so no link breaks over it. */
export const tokenKeys: () => TokenKeys = keySetting('TOKEN_SIGNING_KEY', () => config().tokenSigningKey, 'token key setting refused; the keys read before stay in use');

// ---- The tokens.

/** What a token says: account id, record id, address... Values are plain so they survive JSON unchanged. */
export type TokenClaims = Record<string, string | number | boolean>;

export type TokenCheck =
  | { valid: true; claims: TokenClaims }
  | { valid: false; reason: 'malformed' | 'forged' | 'wrong-purpose' | 'expired' };

const purposePattern = /^[a-z][a-z0-9-]{0,62}$/;
const base64url = /^[A-Za-z0-9_-]+$/;
// Well above any token we issue; refusing longer input early keeps a hostile link cheap to reject.
const maxTokenLength = 2048;
const sealedVersion = '2';
const sealedHeader = new RegExp(`^${sealedVersion}[A-Za-z0-9_-]{${tokenKeyIdLength}}$`);
const ivBytes = 12;
const tagBytes = 16;

function nowSeconds(): number {
  return Math.floor(currentTime().getTime() / 1000);
}

function checkPurpose(purpose: string): void {
  if (!purposePattern.test(purpose)) throw new Error(`Token purpose must be lower-case kebab-case, got '${purpose}'`);
}

export function isClaims(value: unknown): value is TokenClaims {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((claim) => ['string', 'number', 'boolean'].includes(typeof claim));
}

/** The claims, unless the expiry (Unix seconds) has passed. */
export function claimsUntil(claims: TokenClaims, expiry: number | undefined): TokenCheck {
  if (expiry !== undefined && nowSeconds() >= expiry) return { valid: false, reason: 'expired' };
  return { valid: true, claims };
}

// The derived keys are KeyObjects, not Buffers: on Node 24 (Lambda's runtime) a Buffer given to
// createHmac or createCipheriv is checked for being a CryptoKey by a path that throws and catches,
// about 20 us a call against 3-4 us for a KeyObject (measured on Node 24.21), and a mail makes one
// token and a MAC per tracked link.
interface PurposeKeys {
  /** The AES-256-GCM key. */
  cipher: KeyObject;
  /** The HMAC key of the synthetic IVs (and of MACs beside a token). */
  mac: KeyObject;
}

// One pair of keys per configured key and purpose, derived once per container.
const purposeKeys = new Map<string, PurposeKeys>();

function purposeKey(key: TokenKey, purpose: string): PurposeKeys {
  const name = `${purpose}\n${key.secret}`;
  let derived = purposeKeys.get(name);
  if (!derived) {
    if (purposeKeys.size >= 64) purposeKeys.clear();
    const bytes = Buffer.from(hkdfSync('sha256', key.secret, '', `signed-token v${sealedVersion} ${purpose}`, 64));
    derived = { cipher: createSecretKey(bytes.subarray(0, 32)), mac: createSecretKey(bytes.subarray(32)) };
    purposeKeys.set(name, derived);
  }
  return derived;
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
  const key = tokenKeys().current;
  const header = `${sealedVersion}${key.id}`;
  const plaintext = JSON.stringify(ttlSeconds === undefined ? [claims] : [claims, nowSeconds() + ttlSeconds]);
  const keys = purposeKey(key, purpose);
  // A synthetic IV (an HMAC of what is sealed): the same claims always make the same token, so a
  // recipient's link or a step's preview link is stable, and distinct claims get IVs as unlikely to
  // collide as random ones (safe for 2^32 tokens per key, NIST SP 800-38D; docs/operations.md).
  const iv = createHmac('sha256', keys.mac).update(`iv\n${header}\n${plaintext}`, 'utf8').digest().subarray(0, ivBytes);
  const cipher = createCipheriv('aes-256-gcm', keys.cipher, iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(header, 'latin1'));
  const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${header}.${sealed.toString('base64url')}`;
}

function decrypt(key: TokenKey, purpose: string, header: string, sealed: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', purposeKey(key, purpose).cipher, sealed.subarray(0, ivBytes), { authTagLength: tagBytes });
    decipher.setAAD(Buffer.from(header, 'latin1'));
    decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
    return Buffer.concat([decipher.update(sealed.subarray(ivBytes, sealed.length - tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** A sealed token: opened only by the key its id names and the purpose's derivation, then read. */
function openSealed(purpose: string, header: string, body: string): TokenCheck {
  const sealed = Buffer.from(body, 'base64url');
  // base64url decoding ignores stray trailing bits; insisting on the canonical form keeps one token per payload.
  if (sealed.length <= ivBytes + tagBytes || sealed.toString('base64url') !== body) return { valid: false, reason: 'malformed' };
  const id = header.slice(1);
  let plaintext: string | undefined;
  // Ids are short, so two keys may share one: try each that has it.
  for (const key of tokenKeys().all) {
    if (key.id === id) plaintext ??= decrypt(key, purpose, header, sealed);
  }
  if (plaintext === undefined) return { valid: false, reason: 'forged' };
  try {
    const value: unknown = JSON.parse(plaintext);
    if (!Array.isArray(value) || value.length < 1 || value.length > 2 || !isClaims(value[0])) return { valid: false, reason: 'malformed' };
    if (value.length === 2 && !Number.isSafeInteger(value[1])) return { valid: false, reason: 'malformed' };
    return claimsUntil(value[0], value[1] as number | undefined);
  } catch {
    return { valid: false, reason: 'malformed' };
  }
}

/** Whether a token is in the sealed format (else it may be a format-1 token: see shared/legacy-tokens.ts). */
export function isSealedToken(token: string): boolean {
  return sealedHeader.test(token.slice(0, token.indexOf('.')));
}

/**
 * Check a sealed token for one purpose. A token of another purpose cannot be opened at all, so it is
 * refused as forged. Links mailed before sealing are checked by shared/legacy-tokens.ts.
 */
export function verifyToken(purpose: string, token: string | undefined): TokenCheck {
  checkPurpose(purpose);
  if (!token || token.length > maxTokenLength) return { valid: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2) return { valid: false, reason: 'malformed' };
  const [head, body] = parts as [string, string];
  if (!sealedHeader.test(head) || !base64url.test(body)) return { valid: false, reason: 'malformed' };
  return openSealed(purpose, head, body);
}

// ---- MACs carried beside a token (a click link binds its target URL to the recipient's token).

function linkMacUnder(key: TokenKey, purpose: string, data: string): Buffer {
  return createHmac('sha256', purposeKey(key, purpose).mac).update(`link\n${data}`, 'utf8').digest();
}

/** HMAC-SHA256 of `data` under the current key, derived for `purpose` alone (no other MAC or token of ours matches it). */
export function linkMac(purpose: string, data: string): Buffer {
  checkPurpose(purpose);
  return linkMacUnder(tokenKeys().current, purpose, data);
}

/**
 * Whether `mac` (the whole MAC, or its first 16 bytes or more) is `linkMac(purpose, data)` under any
 * key of the set, compared in constant time: links made before a rotation keep working.
 */
export function isLinkMac(purpose: string, data: string, mac: Buffer): boolean {
  checkPurpose(purpose);
  if (mac.length < 16 || mac.length > 32) return false;
  return tokenKeys().all.some((key) => timingSafeEqual(linkMacUnder(key, purpose, data).subarray(0, mac.length), mac));
}
