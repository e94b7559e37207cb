// Tampering with a token the way its holder could: change its claims and keep its proof. A
// format-1 token gets a new readable payload under the old signature; a sealed token gets the
// stream cipher's known-plaintext edit (the holder knows the claims sealed in it, so the bits of the
// ciphertext can be flipped to spell other claims) under the old authentication tag.
import { verifyToken, type TokenClaims } from '../../shared/signed-token';

const ivBytes = 12;
const tagBytes = 16;

export function tamperedClaims(purpose: string, token: string, change: (claims: TokenClaims) => TokenClaims): string {
  const [head, body] = token.split('.') as [string, string];
  if (!head.startsWith('2')) {
    const decoded = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return `${Buffer.from(JSON.stringify({ ...decoded, c: change(decoded.c) })).toString('base64url')}.${body}`;
  }
  const check = verifyToken(purpose, token);
  if (!check.valid) throw new Error(`tamperedClaims needs a valid ${purpose} token, got ${check.reason}`);
  const sealed = Buffer.from(body, 'base64url');
  const ciphertext = sealed.subarray(ivBytes, sealed.length - tagBytes);
  // The sealed plaintext is `[claims]` or `[claims,expiry]`: its start is known to the holder.
  const known = Buffer.from(`[${JSON.stringify(check.claims)}`);
  const wanted = Buffer.from(`[${JSON.stringify(change(check.claims))}`);
  const rest = ciphertext.subarray(known.length);
  const edited = Buffer.concat([Buffer.alloc(wanted.length), rest]);
  // Where the claims move the rest (an address of another length), its bytes are a guess, as they would be.
  for (let i = 0; i < wanted.length; i++) edited[i] = i < known.length ? (ciphertext[i] as number) ^ (known[i] as number) ^ (wanted[i] as number) : (wanted[i] as number);
  return `${head}.${Buffer.concat([sealed.subarray(0, ivBytes), edited, sealed.subarray(sealed.length - tagBytes)]).toString('base64url')}`;
}
