// A webhook's signing secret: made on save, shown once, kept sealed in the table (so a table export
// or backup alone signs nothing) and opened only by the deliverer to compute each signature.
// Sealing is AES-256-GCM under a key derived (HKDF) from the webhook secret key, a key of its own
// (its own secret deployed, WEBHOOK_SECRET_KEY locally), so the deliverer, which connects to hosts
// tenants choose, never holds the token-signing key. The stored form names the key by its id, so
// rotating it (a key set kept with the old keys, shared/key-set.ts) leaves every stored secret readable.
// Secrets sealed before under the token-signing key (`v1.`) are re-sealed by webhook-reseal-service.ts.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { config } from '../config';
import { keySetting, type SettingKey } from '../key-set';

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

/** The keys of the setting, parsed once per value; a mistaken new value keeps the keys read before. */
const webhookSecretKeys = keySetting('WEBHOOK_SECRET_KEY', () => config().webhookSecretKey, 'webhook secret key setting refused; the keys read before stay in use');

/** The version of the stored form sealed under the webhook secret key. */
const sealedVersion = 'v2';
/** The version of secrets sealed under the token-signing key, before the webhook secret key existed. */
export const legacySealedVersion = 'v1';

function sealingKey(key: SettingKey): Buffer {
  return Buffer.from(hkdfSync('sha256', key.secret, Buffer.alloc(0), 'webhook-secret-sealing v2', 32));
}

/** A secret sealed under the token-signing key, which only a re-seal (not the deliverer) can open. */
export function isLegacySealed(stored: string): boolean {
  return stored.startsWith(`${legacySealedVersion}.`);
}

/** `v2.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts, the version and key id authenticated with the ciphertext. */
export function encryptSecret(secret: string): string {
  const key = webhookSecretKeys().current;
  const header = `${sealedVersion}.${key.id}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key), iv);
  cipher.setAAD(Buffer.from(header, 'utf8'));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [header, ...[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url'))].join('.');
}

function openWith(key: SettingKey, header: string, iv: string, tag: string, sealed: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(key), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(header, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function decryptSecret(stored: string): string {
  const [version, keyId, iv, tag, sealed] = stored.split('.');
  let secret: string | undefined;
  if (version === sealedVersion && iv && tag && sealed !== undefined) {
    // Ids are short, so two keys may share one: try each that has it.
    for (const key of webhookSecretKeys().all) {
      if (key.id === keyId) secret ??= openWith(key, `${version}.${keyId}`, iv, tag, sealed);
    }
  }
  if (secret === undefined) throw new Error('Unreadable stored webhook secret (unknown format or webhook secret key)');
  return secret;
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
