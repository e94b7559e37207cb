// Webhook secrets sealed before they had a key of their own: `v1.<token key id>.<iv>.<tag>.<ciphertext>`,
// AES-256-GCM under an HKDF of the token-signing key. Only the re-seal (webhook-reseal-service.ts),
// which holds both keys, opens them; the deliverer never holds the token-signing key.
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { tokenKeys } from '../signed-token';
import { legacySealedVersion } from './secret';

function legacyKey(signingKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, Buffer.alloc(0), 'webhook-secret-encryption', 32));
}

/** The secret a `v1.` stored form seals; throws when it names no key of the token key set or was altered. */
export function openLegacySecret(stored: string): string {
  const [version, keyId, iv, tag, sealed] = stored.split('.');
  const key = tokenKeys().all.find((candidate) => candidate.id === keyId);
  if (version !== legacySealedVersion || !key || !iv || !tag || sealed === undefined) throw new Error('Unreadable stored webhook secret (unknown format or signing key)');
  const decipher = createDecipheriv('aes-256-gcm', legacyKey(key.secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
}
