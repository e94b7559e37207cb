// Resolve the PublicKey/SecretKey headers to an account: one GetItem per public key, cached briefly
// in the container; the secret is compared in constant time on every request.
import { config } from '../config';
import { findCredential, type StoredCredential } from '../accounts/repository';
import { UnauthorizedError, type FieldErrors } from '../http/errors';
import { secretMatches } from '../accounts/credentials';

export interface AuthenticatedAccount {
  id: number;
}

const cache = new Map<string, { credential: StoredCredential; until: number }>();
const maxCached = 1000;

async function lookup(publicKey: string): Promise<StoredCredential | undefined> {
  const now = Date.now();
  const hit = cache.get(publicKey);
  if (hit && hit.until > now) return hit.credential;
  const credential = await findCredential(publicKey);
  if (credential) {
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
    cache.set(publicKey, { credential, until: now + config().credentialCacheMs });
  }
  return credential;
}

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

export async function authenticate(headers: Record<string, string | undefined>): Promise<AuthenticatedAccount> {
  const publicKey = header(headers, 'PublicKey');
  const secretKey = header(headers, 'SecretKey');
  const missing: FieldErrors = {};
  if (!publicKey) missing.PublicKey = ['The public key field is required.'];
  if (!secretKey) missing.SecretKey = ['The secret key field is required.'];
  if (!publicKey || !secretKey) throw new UnauthorizedError(missing);
  const credential = await lookup(publicKey);
  if (!credential || !secretMatches(secretKey, credential.secretHash)) {
    throw new UnauthorizedError('Invalid credentials.');
  }
  return { id: credential.accountId };
}
