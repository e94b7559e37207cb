// Webhook secrets as stored before they had a key of their own, made here the way the service made
// them then (AES-256-GCM under an HKDF of the token-signing key, naming that key's id), so tests hold
// the real old form rather than one the current code produces.
import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** `v1.<token key id>.<iv>.<tag>.<ciphertext>` of `secret` under the plain token-signing key `signingKey`. */
export function sealedAsBefore(secret: string, signingKey: string): string {
  const keyId = createHmac('sha256', signingKey).update('token-key-id').digest('base64url').slice(0, 4);
  const key = Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'webhook-secret-encryption', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', keyId, ...[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'))].join('.');
}

/** A secret as the service made them before Standard Webhooks: `whsec_` and 64 hex digits. */
export function hexSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}
