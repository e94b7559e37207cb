// Tokens: round trip, purpose binding, expiry on the injectable clock, and refusal of forgeries, for
// sealed tokens and for the readable format-1 tokens mailed before sealing (still accepted in links,
// not as list cursors).
import { createHmac } from 'node:crypto';
import { verifyLinkToken } from '../../shared/legacy-tokens';
import { signToken, verifyToken } from '../../shared/signed-token';
import { resetConfig } from '../../shared/config';
import { resetClock, setClock } from '../../shared/time';

const signingKey = 'unit-test-signing-key';

function useKey(key: string): void {
  process.env.TOKEN_SIGNING_KEY = key;
  resetConfig();
}

function decodedPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
}

/** A format-1 token signed exactly as the module did before sealing, over a payload of the test's choosing. */
function forge(payload: unknown, key = signingKey): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', key).update(`v1.${encoded}`).digest('base64url')}`;
}

describe('signed tokens', () => {
  const start = new Date('2024-05-01T12:00:00Z');

  beforeAll(() => {
    process.env.APP_RUNTIME = 'local';
    process.env.TABLE_NAME = 'unit';
  });

  beforeEach(() => {
    useKey(signingKey);
    setClock(() => start);
  });

  afterAll(() => {
    resetClock();
    delete process.env.TOKEN_SIGNING_KEY;
    resetConfig();
  });

  it('gives back the claims of a token of the same purpose', () => {
    const token = signToken('sender-confirmation', { account: 7, sender: 3, email: 'a@example.com', fresh: true }, 3600);
    expect(verifyLinkToken('sender-confirmation', token)).toEqual({
      valid: true,
      claims: { account: 7, sender: 3, email: 'a@example.com', fresh: true },
    });
  });

  it('is URL-safe, names its key and format, and carries nothing readable', () => {
    const token = signToken('unsubscribe', { account: 1, email: 'someone@example.com' }, 60);
    expect(token).toMatch(/^2[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token.split('.')[1] as string, 'base64url').toString('latin1')).not.toMatch(/someone|account|unsubscribe/);
  });

  it('accepts a format-1 token made before sealing, with its purpose and expiry', () => {
    const legacy = forge({ v: 1, p: 'unsubscribe', e: start.getTime() / 1000 + 60, c: { account: 1 } });
    expect(verifyLinkToken('unsubscribe', legacy)).toEqual({ valid: true, claims: { account: 1 } });
    setClock(() => new Date(start.getTime() + 60_000));
    expect(verifyLinkToken('unsubscribe', legacy)).toEqual({ valid: false, reason: 'expired' });
  });

  it('accepts only sealed tokens where no mailed link is read (list cursors)', () => {
    const token = signToken('list-cursor', { partition: 'A#1#contacts' });
    expect(verifyToken('list-cursor', token)).toEqual({ valid: true, claims: { partition: 'A#1#contacts' } });
    expect(verifyToken('list-cursor', forge({ v: 1, p: 'list-cursor', c: { partition: 'A#1#contacts' } }))).toEqual({ valid: false, reason: 'malformed' });
  });

  it('refuses a token of another purpose with the same claims', () => {
    const token = signToken('unsubscribe', { account: 1, contact: 2 });
    // A sealed token of another purpose cannot be opened at all; a format-1 one says what it is.
    expect(verifyLinkToken('sender-confirmation', token)).toEqual({ valid: false, reason: 'forged' });
    expect(verifyLinkToken('sender-confirmation', forge({ v: 1, p: 'unsubscribe', c: { account: 1 } }))).toEqual({ valid: false, reason: 'wrong-purpose' });
  });

  it('accepts a token until its expiry and refuses it from then on', () => {
    const token = signToken('sender-confirmation', { account: 1 }, 60);
    setClock(() => new Date(start.getTime() + 59_000));
    expect(verifyLinkToken('sender-confirmation', token).valid).toBe(true);
    setClock(() => new Date(start.getTime() + 60_000));
    expect(verifyLinkToken('sender-confirmation', token)).toEqual({ valid: false, reason: 'expired' });
  });

  it('never expires a token signed without a lifetime', () => {
    const token = signToken('open-pixel', { account: 1 });
    setClock(() => new Date('2099-01-01T00:00:00Z'));
    expect(verifyLinkToken('open-pixel', token).valid).toBe(true);
  });

  it('refuses a sealed token whose ciphertext was changed', () => {
    const [header, body] = signToken('sender-confirmation', { account: 1, sender: 3 }, 60).split('.') as [string, string];
    const sealed = Buffer.from(body, 'base64url');
    for (const at of [0, 12, 20, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[at] = (changed[at] as number) ^ 1;
      expect(verifyLinkToken('sender-confirmation', `${header}.${changed.toString('base64url')}`)).toEqual({ valid: false, reason: 'forged' });
    }
    expect(verifyLinkToken('sender-confirmation', `${header}.${sealed.subarray(0, sealed.length - 1).toString('base64url')}`)).toEqual({ valid: false, reason: 'forged' });
    expect(verifyLinkToken('sender-confirmation', `${header}.${sealed.subarray(0, 28).toString('base64url')}`)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('refuses a format-1 payload changed after signing (a different record id)', () => {
    const token = forge({ v: 1, p: 'sender-confirmation', c: { account: 1, sender: 3 } });
    const [, signature] = token.split('.');
    const tampered = Buffer.from(JSON.stringify({ ...decodedPayload(token), c: { account: 1, sender: 4 } })).toString('base64url');
    expect(verifyLinkToken('sender-confirmation', `${tampered}.${signature}`)).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a format-1 payload whose expiry was pushed back', () => {
    const token = forge({ v: 1, p: 'sender-confirmation', e: start.getTime() / 1000 + 60, c: { account: 1 } });
    const [, signature] = token.split('.');
    const extended = Buffer.from(JSON.stringify({ ...decodedPayload(token), e: 4_000_000_000 })).toString('base64url');
    expect(verifyLinkToken('sender-confirmation', `${extended}.${signature}`)).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a sealed token differing only in unused trailing bits (one token per payload)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // Claims whose sealed length is not a multiple of 3 bytes, so the last character has unused bits.
    let token = signToken('sender-confirmation', { account: 1 }, 60);
    for (let pad = 'x'; Buffer.from(token.split('.')[1] as string, 'base64url').length % 3 === 0; pad += 'x') token = signToken('sender-confirmation', { account: 1, pad }, 60);
    const last = token.at(-1) as string;
    const sibling = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(sibling.split('.')[1] as string, 'base64url')).toEqual(Buffer.from(token.split('.')[1] as string, 'base64url'));
    expect(verifyLinkToken('sender-confirmation', sibling)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyLinkToken('sender-confirmation', token).valid).toBe(true);
  });

  it('refuses a changed format-1 signature, including one differing only in unused trailing bits', () => {
    const token = forge({ v: 1, p: 'sender-confirmation', c: { account: 1 } });
    const [payload, signature] = token.split('.') as [string, string];
    const flipped = `${signature.slice(0, 5)}${signature[5] === 'A' ? 'B' : 'A'}${signature.slice(6)}`;
    expect(verifyLinkToken('sender-confirmation', `${payload}.${flipped}`)).toEqual({ valid: false, reason: 'forged' });
    // 32 bytes make 43 base64url characters; the last carries 2 unused bits.
    const last = signature.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] as string;
    expect(Buffer.from(signature.slice(0, -1) + sibling, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(verifyLinkToken('sender-confirmation', `${payload}.${signature.slice(0, -1)}${sibling}`)).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a token signed with another key', () => {
    const token = signToken('sender-confirmation', { account: 1 }, 60);
    useKey('another-key');
    expect(verifyLinkToken('sender-confirmation', token)).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a correctly signed payload that is not a token of ours', () => {
    expect(verifyLinkToken('sender-confirmation', forge({ v: 2, p: 'sender-confirmation', c: {} }))).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyLinkToken('sender-confirmation', forge({ v: 1, p: 'sender-confirmation', c: { nested: { a: 1 } } }))).toEqual({
      valid: false,
      reason: 'malformed',
    });
    expect(verifyLinkToken('sender-confirmation', forge({ v: 1, p: 'sender-confirmation', c: {} })).valid).toBe(true);
  });

  it.each([undefined, '', 'no-dot', 'a.b.c', 'bad chars.here', `${'a'.repeat(3000)}.b`])('refuses malformed input %j', (token) => {
    expect(verifyLinkToken('sender-confirmation', token)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('refuses to sign with a bad purpose or lifetime', () => {
    expect(() => signToken('Sender Confirmation', {})).toThrow(/purpose/);
    expect(() => signToken('sender-confirmation', {}, 0)).toThrow(/lifetime/);
    expect(() => signToken('sender-confirmation', {}, 1.5)).toThrow(/lifetime/);
  });

  it('gives different tokens for different claims, so one cannot be derived from another', () => {
    const first = signToken('sender-confirmation', { account: 1, sender: 1 }, 60);
    const second = signToken('sender-confirmation', { account: 1, sender: 2 }, 60);
    expect(first.split('.')[1]).not.toBe(second.split('.')[1]);
    expect(verifyLinkToken('sender-confirmation', first)).toEqual({ valid: true, claims: { account: 1, sender: 1 } });
    expect(verifyLinkToken('sender-confirmation', second)).toEqual({ valid: true, claims: { account: 1, sender: 2 } });
  });
});
