// Key generation and checking: secrets are random, shown once, and stored only as a SHA-256 hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new public key: not secret, but unguessable so it does not reveal how many accounts exist. */
export function newPublicKey(): string {
  return `pk_${randomBytes(16).toString('hex')}`;
}

/** A new secret key with 32 bytes of entropy. */
export function newSecretKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/**
 * The stored form of a secret. A fast hash is enough: the secret has 256 bits of entropy, so there
 * is nothing for a slow password hash to protect against.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
