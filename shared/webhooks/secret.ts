// A webhook's signing secret: made on save, shown once, kept encrypted in the table (so a table export
// or backup alone signs nothing) and decrypted only by the deliverer to compute each signature.
// Encryption is AES-256-GCM under a key derived (HKDF) from the token-signing key for this purpose
// alone. The stored form names the signing key by its id, as tokens do, so rotating the signing key
// (a key set kept with the old keys, shared/signed-token.ts) leaves every stored secret readable.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { tokenKeys } from '../signed-token';

/** What every secret starts with (the Standard Webhooks form), so one found in a log or a repository is recognisable. */
export const secretPrefix = 'whsec_';

/** Random bytes of a new secret's key: 256 bits, the size of the HMAC-SHA256 output (RFC 2104's advice). */
export const secretKeyBytes = 32;

/** `whsec_` and the base64 of a random key, as Standard Webhooks receivers (and their libraries) take it. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(secretKeyBytes).toString('base64')}`;
}

/**
 * The HMAC key of a secret: the base64 decoding of what follows `whsec_`, as the Standard Webhooks
 * libraries decode it. Secrets made before were `whsec_` and 64 hex digits, which is also base64
 * text (of 48 bytes), so receivers keep verifying with the secret they were shown.
 */
export function signingKeyOf(secret: string): Buffer {
  const text = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret;
  const key = Buffer.from(text, 'base64');
  // Node skips characters that are not base64 where the libraries refuse them: refuse them here too.
  if (key.length === 0 || key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) throw new Error('A webhook secret must be whsec_ and base64 text');
  return key;
}

function encryptionKey(signingKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'webhook-secret-encryption', 32));
}

/** `v1.<signing key id>.<iv>.<tag>.<ciphertext>`, base64url parts; the version names the scheme should it change. */
export function encryptSecret(secret: string): string {
  const key = tokenKeys().current;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(key.secret), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', key.id, ...[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'))].join('.');
}

export function decryptSecret(stored: string): string {
  const [version, keyId, iv, tag, sealed] = stored.split('.');
  const key = tokenKeys().all.find((candidate) => candidate.id === keyId);
  if (version !== 'v1' || !key || !iv || !tag || sealed === undefined) throw new Error('Unreadable stored webhook secret (unknown format or signing key)');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(key.secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The `webhook-signature` value (Standard Webhooks): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * keyed with the secret's key. The id is signed, so a delivery replayed under another id is refused.
 */
export function webhookSignature(secret: string, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', signingKeyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The deprecated `X-Webhook-Signature` value receivers written before Standard Webhooks check:
 * `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with the secret as text. Sent beside the
 * standard headers until those receivers have moved (docs/api-notes.md).
 */
export function legacyWebhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
