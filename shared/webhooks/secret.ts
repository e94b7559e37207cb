// A webhook's signing secret: made on save, shown once, kept encrypted in the table (so a table export
// or backup alone signs nothing) and decrypted only by the deliverer to compute each signature.
// Encryption is AES-256-GCM under a key derived (HKDF) from the token-signing key for this purpose
// alone. The stored form names the signing key by its id, as tokens do, so rotating the signing key
// (a key set kept with the old keys, shared/signed-token.ts) leaves every stored secret readable.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { tokenKeys } from '../signed-token';

/** What every secret starts with, so one found in a log or a repository is recognisable. */
export const secretPrefix = 'whsec_';

export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('hex')}`;
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

/** The `X-Webhook-Signature` value: `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with the secret as text. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
