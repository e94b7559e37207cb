// Recipient links: the token round trip for both kinds of send, no expiry, refusal of forged,
// re-targeted and foreign tokens (sealed, and format 1 as mailed before sealing), and the URLs the mail carries.
import { createHmac } from 'node:crypto';
import { signSenderConfirmation } from '../../shared/senders/confirmation';
import { signToken, verifyToken } from '../../shared/signed-token';
import { resetConfig } from '../../shared/config';
import { openPixelUrl, oneClickUnsubscribeUrl, preferencesUrl, recipientToken, verifyRecipientToken } from '../../shared/public-links/recipient-links';
import type { SendRef } from '../../shared/ledger/send-ref';
import { resetClock, setClock } from '../../shared/time';

const signingKey = 'unit-test-links-key';
const singleSend: SendRef = { kind: 'single-send', accountId: 12, utr: '3f0c1a9e-5b7d-4c2e-9a41-0d6b8e2f7c13' };
const automationStep: SendRef = { kind: 'automation-step', accountId: 12, automationUtr: 'auto-1', stepUtr: 'step-2' };

function payloadOf(token: string): { v: number; p: string; e?: number; c: Record<string, unknown> } {
  return JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
}

/** A token signed with the right key over claims of the test's choosing (what only a bug could produce). */
function signedWithKey(payload: unknown): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', signingKey).update(`v1.${encoded}`).digest('base64url')}`;
}

describe('recipient links', () => {
  beforeAll(() => {
    process.env.APP_RUNTIME = 'local';
    process.env.TABLE_NAME = 'unit';
    process.env.PUBLIC_BASE_URL = 'https://mail.example.com/api/';
    process.env.TOKEN_SIGNING_KEY = signingKey;
    resetConfig();
  });

  afterEach(() => resetClock());

  afterAll(() => {
    delete process.env.TOKEN_SIGNING_KEY;
    delete process.env.PUBLIC_BASE_URL;
    resetConfig();
  });

  it('gives back the send, address and group of a single-send token', () => {
    const token = recipientToken(singleSend, 'Reader@Example.com', 4);
    expect(verifyRecipientToken(token)).toEqual({ valid: true, claims: { ref: singleSend, email: 'Reader@Example.com', groupId: 4 } });
  });

  it('gives back an automation step and no group', () => {
    const token = recipientToken(automationStep, 'reader@example.com', null);
    expect(verifyRecipientToken(token)).toEqual({ valid: true, claims: { ref: automationStep, email: 'reader@example.com', groupId: null } });
  });

  it('seals the documented claims for the purpose "recipient", without expiry', () => {
    const token = recipientToken(singleSend, 'reader@example.com', 4);
    expect(token).toMatch(/^2[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]+$/);
    expect(verifyToken('recipient', token)).toEqual({ valid: true, claims: { s: `s.12.${singleSend.utr}`, e: 'reader@example.com', g: 4 } });
  });

  it('still reads the readable (format 1) tokens mailed before sealing, which also name the account', () => {
    const claims = { a: 12, s: `s.12.${singleSend.utr}`, e: 'reader@example.com', g: 4 };
    expect(payloadOf(signedWithKey({ v: 1, p: 'recipient', c: claims })).c).toEqual(claims);
    expect(verifyRecipientToken(signedWithKey({ v: 1, p: 'recipient', c: claims }))).toEqual({
      valid: true,
      claims: { ref: singleSend, email: 'reader@example.com', groupId: 4 },
    });
  });

  it('keeps working years after the mail was sent (unsubscribe links must not expire)', () => {
    setClock(() => new Date('2025-01-01T00:00:00Z'));
    const token = recipientToken(singleSend, 'reader@example.com', 4);
    setClock(() => new Date('2035-01-01T00:00:00Z'));
    expect(verifyRecipientToken(token).valid).toBe(true);
  });

  it('makes a different token for each address, so one link never opens another reader\'s', () => {
    const tokens = new Set(['a@example.com', 'b@example.com', 'c@example.com'].map((email) => recipientToken(singleSend, email, 4)));
    expect(tokens.size).toBe(3);
  });

  it('refuses a format-1 token re-targeted to another address under the same signature', () => {
    const [, signature] = signedWithKey({ v: 1, p: 'recipient', c: { a: 12, s: `s.12.${singleSend.utr}`, e: 'reader@example.com', g: 4 } }).split('.') as [
      string,
      string,
    ];
    const retargeted = Buffer.from(JSON.stringify({ v: 1, p: 'recipient', c: { a: 12, s: `s.12.${singleSend.utr}`, e: 'victim@example.com', g: 4 } })).toString('base64url');
    expect(verifyRecipientToken(`${retargeted}.${signature}`)).toEqual({ valid: false, reason: 'forged' });
  });

  it('refuses a token signed with another key', () => {
    const token = recipientToken(singleSend, 'reader@example.com', 4);
    process.env.TOKEN_SIGNING_KEY = 'another-deployment';
    resetConfig();
    try {
      expect(verifyRecipientToken(token)).toEqual({ valid: false, reason: 'forged' });
    } finally {
      process.env.TOKEN_SIGNING_KEY = signingKey;
      resetConfig();
    }
  });

  it('refuses tokens made for another purpose', () => {
    const confirmation = signSenderConfirmation({ accountId: 12, senderId: 1, email: 'reader@example.com' });
    const sameClaims = signToken('unsubscribe', { a: 12, s: `s.12.${singleSend.utr}`, e: 'reader@example.com' });
    // Sealed with another purpose's key: it cannot even be opened.
    expect(verifyRecipientToken(confirmation)).toEqual({ valid: false, reason: 'forged' });
    expect(verifyRecipientToken(sameClaims)).toEqual({ valid: false, reason: 'forged' });
    expect(verifyRecipientToken(signedWithKey({ v: 1, p: 'unsubscribe', c: { a: 12, s: `s.12.${singleSend.utr}`, e: 'reader@example.com' } }))).toEqual({
      valid: false,
      reason: 'wrong-purpose',
    });
  });

  it('refuses missing, empty and garbled tokens', () => {
    expect(verifyRecipientToken(undefined)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyRecipientToken('')).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyRecipientToken('not-a-token')).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyRecipientToken('abc.def.ghi')).toEqual({ valid: false, reason: 'malformed' });
  });

  it('refuses signed claims of the wrong shape or whose send belongs to another account', () => {
    const claims = { a: 12, s: `s.12.${singleSend.utr}`, e: 'reader@example.com' };
    const shapes = [
      { ...claims, a: '12' },
      { ...claims, s: 'not a send reference' },
      { ...claims, s: `s.13.${singleSend.utr}` },
      { ...claims, e: '' },
      { ...claims, g: 'four' },
    ];
    for (const shape of shapes) {
      expect(verifyRecipientToken(signedWithKey({ v: 1, p: 'recipient', c: shape }))).toEqual({ valid: false, reason: 'malformed' });
      expect(verifyRecipientToken(signToken('recipient', shape))).toEqual({ valid: false, reason: 'malformed' });
    }
    expect(verifyRecipientToken(signedWithKey({ v: 1, p: 'recipient', c: claims })).valid).toBe(true);
  });

  it('builds the three public URLs under the public base URL', () => {
    const token = recipientToken(singleSend, 'reader@example.com', 4);
    expect(preferencesUrl(token)).toBe(`https://mail.example.com/api/public/preferences?token=${token}`);
    expect(oneClickUnsubscribeUrl(token)).toBe(`https://mail.example.com/api/public/unsubscribe?token=${token}`);
    expect(openPixelUrl(token)).toBe(`https://mail.example.com/api/public/open?token=${token}`);
    expect(new URL(preferencesUrl(token)).searchParams.get('token')).toBe(token);
  });
});
