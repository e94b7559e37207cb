// Links that leak nothing and survive key rotation: recipient tokens are sealed (the address cannot
// be read from them), name the key they were made with, and keep verifying when that key is no
// longer the current one; tokens mailed before sealing (format v1) keep working too.
import { createHmac } from 'node:crypto';
import { resetConfig } from '../../shared/config';
import { recipientToken, verifyRecipientToken } from '../../shared/public-links/recipient-links';
import type { SendRef } from '../../shared/ledger/send-ref';
import { isLinkMac, linkMac, parseTokenKeys, signToken, verifyToken } from '../../shared/signed-token';

const oldKey = 'old-signing-key-0123456789abcdef0123456789';
const newKey = 'new-signing-key-fedcba9876543210fedcba9876';
const ref: SendRef & { kind: 'single-send' } = { kind: 'single-send', accountId: 12, utr: '3f0c1a9e-5b7d-4c2e-9a41-0d6b8e2f7c13' };
const address = 'reader@example.com';

function useKeys(value: string): void {
  process.env.TOKEN_SIGNING_KEY = value;
  resetConfig();
}

const keySet = (current: string, keys: Record<string, string>) => JSON.stringify({ current, keys });

/** A recipient token exactly as mailed before tokens were sealed: readable JSON and an HMAC of it. */
function legacyRecipientToken(key: string, email = address): string {
  const payload = { v: 1, p: 'recipient', c: { a: ref.accountId, s: `s.12.${ref.utr}`, e: email, g: 4 } };
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', key).update(`v1.${encoded}`).digest('base64url')}`;
}

/** Every reading of the token an onlooker could try: as it is, and each part base64url-decoded. */
function readings(token: string): string[] {
  return [token, decodeURIComponent(token), ...token.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1'))];
}

describe('opaque recipient tokens', () => {
  beforeAll(() => {
    process.env.APP_RUNTIME = 'local';
    process.env.TABLE_NAME = 'unit';
  });

  beforeEach(() => useKeys(oldKey));

  afterAll(() => {
    delete process.env.TOKEN_SIGNING_KEY;
    resetConfig();
  });

  it('does not carry the address, the account or the send in readable form', () => {
    const token = recipientToken(ref, 'Reader.Name+tag@Example.com', 4);
    for (const text of readings(token)) {
      expect(text.toLowerCase()).not.toContain('reader');
      expect(text.toLowerCase()).not.toContain('example');
      expect(text).not.toContain(ref.utr);
      expect(text).not.toContain('recipient');
    }
    expect(verifyRecipientToken(token)).toEqual({ valid: true, claims: { ref, email: 'Reader.Name+tag@Example.com', groupId: 4 } });
  });

  it('is URL-safe and shorter than the readable token it replaces', () => {
    const token = recipientToken(ref, address, 4);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(token.length).toBeLessThan(legacyRecipientToken(oldKey).length);
    expect(token.length).toBeLessThanOrEqual(160);
  });

  it('gives one recipient of one send the same link every time, and every other recipient or send another', () => {
    const token = recipientToken(ref, address, 4);
    expect(recipientToken(ref, address, 4)).toBe(token);
    const others = [recipientToken(ref, 'reader@example.org', 4), recipientToken(ref, address, 5), recipientToken({ ...ref, utr: `${ref.utr.slice(0, -1)}4` }, address, 4)];
    expect(new Set([token, ...others]).size).toBe(4);
    // Nothing is shared between tokens of near-identical claims: the IV (first 12 bytes) differs too.
    const ivs = [token, ...others].map((one) => Buffer.from(one.split('.')[1] as string, 'base64url').subarray(0, 12).toString('hex'));
    expect(new Set(ivs).size).toBe(4);
  });

  it('names the key it was made with by a short id', () => {
    const { current } = parseTokenKeys(oldKey);
    expect(recipientToken(ref, address, 4).startsWith(`2${current.id}.`)).toBe(true);
    expect(signToken('sender-confirmation', { account: 1 }, 60).startsWith(`2${current.id}.`)).toBe(true);
  });

  it('keeps verifying links made with the previous key after rotation, and makes new ones with the new key', () => {
    const mailedBefore = recipientToken(ref, address, 4);
    useKeys(keySet('2026-11', { '2025-01': oldKey, '2026-11': newKey }));
    expect(verifyRecipientToken(mailedBefore)).toEqual({ valid: true, claims: { ref, email: address, groupId: 4 } });
    const mailedAfter = recipientToken(ref, address, 4);
    expect(mailedAfter.startsWith(`2${parseTokenKeys(newKey).current.id}.`)).toBe(true);
    expect(verifyRecipientToken(mailedAfter).valid).toBe(true);
    // A container that knows only the old key cannot read the new links: rotation adds the key first.
    useKeys(oldKey);
    expect(verifyRecipientToken(mailedAfter)).toEqual({ valid: false, reason: 'forged' });
  });

  it('keeps the keys read before when a new setting has a mistake in it, so no link breaks over a typo', () => {
    const mailedBefore = recipientToken(ref, address, 4);
    useKeys(keySet('2026-11', { '2026-11': 'too short' }));
    expect(verifyRecipientToken(mailedBefore).valid).toBe(true);
    expect(recipientToken(ref, address, 4).startsWith(`2${parseTokenKeys(oldKey).current.id}.`)).toBe(true);
  });

  it('refuses links of a key removed from the set (the way to retire a leaked key)', () => {
    const mailedBefore = recipientToken(ref, address, 4);
    useKeys(keySet('new', { new: newKey }));
    expect(verifyRecipientToken(mailedBefore)).toEqual({ valid: false, reason: 'forged' });
  });

  it('keeps verifying readable (v1) links mailed before sealing, with the current or a previous key', () => {
    const legacy = legacyRecipientToken(oldKey);
    expect(verifyRecipientToken(legacy)).toEqual({ valid: true, claims: { ref, email: address, groupId: 4 } });
    useKeys(keySet('next', { first: oldKey, next: newKey }));
    expect(verifyRecipientToken(legacy)).toEqual({ valid: true, claims: { ref, email: address, groupId: 4 } });
    expect(verifyRecipientToken(legacyRecipientToken('a-key-we-never-had-0123456789abcdef'))).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a sealed token changed in any character', () => {
    const token = recipientToken(ref, address, 4);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const at of [0, 1, 4, 6, 20, token.length - 2]) {
      const changed = `${token.slice(0, at)}${alphabet[(alphabet.indexOf(token[at] as string) + 1) % 64]}${token.slice(at + 1)}`;
      expect(verifyRecipientToken(changed).valid).toBe(false);
    }
  });

  it('cannot be opened for another purpose (each purpose has its own derived key)', () => {
    const claims = { s: `s.12.${ref.utr}`, e: address, g: 4 };
    expect(verifyToken('sender-confirmation', signToken('recipient', claims))).toEqual({ valid: false, reason: 'forged' });
    expect(verifyRecipientToken(signToken('unsubscribe', claims))).toEqual({ valid: false, reason: 'forged' });
  });
});

describe('token key sets', () => {
  it('takes a plain string as one key, with an id derived from the key', () => {
    const keys = parseTokenKeys(oldKey);
    expect(keys.all).toEqual([keys.current]);
    expect(keys.current).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{4}$/), secret: oldKey });
    expect(parseTokenKeys(oldKey).current.id).toBe(keys.current.id);
    expect(parseTokenKeys(newKey).current.id).not.toBe(keys.current.id);
  });

  it('derives the same id for a key whatever it is labelled in a set, so moving to a set breaks no link', () => {
    const set = parseTokenKeys(keySet('b', { a: oldKey, b: newKey }));
    expect(set.current).toEqual(parseTokenKeys(newKey).current);
    expect(set.all).toEqual(expect.arrayContaining([parseTokenKeys(oldKey).current, parseTokenKeys(newKey).current]));
    expect(set.all).toHaveLength(2);
  });

  it.each([
    ['{not json', /must be one key, or \{"current"/],
    [JSON.stringify({ keys: { a: oldKey } }), /"current"/],
    [keySet('b', { a: oldKey }), /"current" names no key/],
    [keySet('a', {}), /"keys"/],
    [keySet('a', { a: 'short' }), /at least 32 characters/],
    [JSON.stringify({ current: 'a', keys: { a: 7 } }), /at least 32 characters/],
    ['', /empty/],
  ])('refuses the key setting %j with a message that names the problem and no secret', (value, message) => {
    let error: Error | undefined;
    try {
      parseTokenKeys(value);
    } catch (thrown) {
      error = thrown as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain(oldKey);
    expect(error?.message).toMatch(/^TOKEN_SIGNING_KEY/);
  });
});

describe('MACs beside a token (click links)', () => {
  beforeAll(() => {
    process.env.APP_RUNTIME = 'local';
    process.env.TABLE_NAME = 'unit';
  });

  beforeEach(() => useKeys(oldKey));

  afterAll(() => {
    delete process.env.TOKEN_SIGNING_KEY;
    resetConfig();
  });

  it('accepts a MAC (or its 16-byte prefix) made with the current or a previous key, for its purpose only', () => {
    const mac = linkMac('click', 'token\nhttps://example.com/');
    expect(isLinkMac('click', 'token\nhttps://example.com/', mac)).toBe(true);
    expect(isLinkMac('click', 'token\nhttps://example.com/', mac.subarray(0, 16))).toBe(true);
    expect(isLinkMac('click', 'token\nhttps://example.com/', mac.subarray(0, 15))).toBe(false);
    expect(isLinkMac('click', 'token\nhttps://evil.example/', mac)).toBe(false);
    expect(isLinkMac('other', 'token\nhttps://example.com/', mac)).toBe(false);
    useKeys(keySet('new', { old: oldKey, new: newKey }));
    expect(isLinkMac('click', 'token\nhttps://example.com/', mac)).toBe(true);
    expect(linkMac('click', 'token\nhttps://example.com/')).not.toEqual(mac);
    useKeys(keySet('new', { new: newKey }));
    expect(isLinkMac('click', 'token\nhttps://example.com/', mac)).toBe(false);
  });
});
