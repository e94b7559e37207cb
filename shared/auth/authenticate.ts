// Resolve the PublicKey/SecretKey headers to an account: one GetItem per public key, cached briefly
// in the container (see credential-cache.ts); the secret is compared in constant time on every request.
// A refusal is answered, not thrown: the pipeline turns it into its 401.
import { config } from '../config';
import { findCredential, type StoredCredential } from '../accounts/repository';
import type { FieldErrors } from '../errors';
import { secretMatches } from '../accounts/credentials';
import { credentialCache } from './credential-cache';

export interface AuthenticatedAccount {
  id: number;
}

/** The caller's account, or why it has none: missing headers (messages per header) or wrong keys (a text). */
export type Authentication = { account: AuthenticatedAccount } | { refused: string | FieldErrors };

// The time-to-live is `credentialCacheMs` (CREDENTIAL_CACHE_MS, default and maximum 60 s): how long a
// revoked key may still be accepted by a container that resolved it just before.
const cache = credentialCache<StoredCredential>({ ttlMs: () => config().credentialCacheMs, maxEntries: 1000 });

/** Forget cached credentials (key rotation in tests and scripts). */
export function clearCredentialCache(): void {
  cache.clear();
}

/** Headers arrive lower-cased from API Gateway; look them up without regard to case. */
function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

export async function authenticate(headers: Record<string, string | undefined>): Promise<Authentication> {
  const publicKey = header(headers, 'PublicKey');
  const secretKey = header(headers, 'SecretKey');
  const missing: FieldErrors = {};
  if (!publicKey) missing.PublicKey = ['The public key field is required.'];
  if (!secretKey) missing.SecretKey = ['The secret key field is required.'];
  if (!publicKey || !secretKey) return { refused: missing };
  const credential = await cache.get(publicKey, () => findCredential(publicKey));
  if (!credential || !secretMatches(secretKey, credential.secretHash)) return { refused: 'Invalid credentials.' };
  return { account: { id: credential.accountId } };
}
