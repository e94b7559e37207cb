// Webhook rules without a table: where a deployed webhook may point (SSRF), the retry schedule, the
// signature (Standard Webhooks, checked against the standardwebhooks library) and the secret's storage form.
import { createHmac } from 'node:crypto';
import { resetConfig } from '../../shared/config';
import { deliverWebhook, maxDeliveryAttempts, retryDelayAfter, retryDelaysSeconds, signedRequest } from '../../shared/webhook-delivery/delivery';
import { Webhook } from 'standardwebhooks';
import { openLegacySecret } from '../../shared/webhooks/legacy-secret';
import { decryptSecret, encryptSecret, isLegacySealed, newWebhookSecret, signingKeyOf, webhookSignature } from '../../shared/webhooks/secret';
import { isPublicAddress, NonPublicAddressError, resolvesToPublicAddresses, urlFormProblem, webhookLookup } from '../../shared/webhooks/target';
import { hexSecret, sealedAsBefore } from '../support/webhook-secrets';

const environment = { ...process.env };
const signingKey = 'unit-test-signing-key-0123456789abcdef';
const webhookKey = 'unit-test-webhook-key-0123456789abcdef';

function runAs(runtime: 'aws' | 'local'): void {
  Object.assign(process.env, { APP_RUNTIME: runtime, TABLE_NAME: 'unused', TOKEN_SIGNING_KEY: signingKey, WEBHOOK_SECRET_KEY: webhookKey });
  resetConfig();
}

afterEach(() => {
  process.env = { ...environment };
  resetConfig();
});

describe('public addresses', () => {
  it.each([
    '127.0.0.1', '127.255.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1',
    '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '64:ff9b:1::1', '2002:7f00:1::1', '2001:0:4136:e378::1', 'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('deployed targets', () => {
  beforeEach(() => runAs('aws'));

  it('takes https only', () => {
    expect(urlFormProblem('https://hooks.example.com/x')).toBeUndefined();
    expect(urlFormProblem('http://hooks.example.com/x')).toBe('The url field must start with one of the following: https://.');
    expect(urlFormProblem('http://localhost:3000/x')).toBe('The url field must start with one of the following: https://.');
  });

  it.each([
    'https://127.0.0.1/', 'https://localhost/', 'https://10.0.0.8:8443/hook', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/',
    'https://[::ffff:127.0.0.1]/', 'https://0x7f000001/', 'https://2130706433/', 'https://nonexistent.invalid/',
  ])('refuses %s on save', async (url) => {
    expect(await resolvesToPublicAddresses(url)).toBe(false);
  });

  it('accepts a public address literal on save', async () => {
    expect(await resolvesToPublicAddresses('https://93.184.215.14/hook')).toBe(true);
  });

  it('refuses, at connection time, a host that resolves inward', async () => {
    const lookup = webhookLookup();
    const error = await new Promise<Error | null>((resolve) => lookup?.('localhost', { all: true }, (failure) => resolve(failure)));
    expect(error).toBeInstanceOf(NonPublicAddressError);
  });

  it('refuses to deliver to a non-public address literal', async () => {
    const outcome = await deliverWebhook({ url: 'https://127.0.0.1:9/hook', secret: newWebhookSecret(), deliveryId: 'd', payload: { event: 'open', email: 'a@example.com', utr: 'u', timestamp: 't' } });
    expect(outcome).toEqual({ delivered: false, detail: 'refused non-public address 127.0.0.1' });
  });

  it('refuses to deliver to a name that resolves inward', async () => {
    const outcome = await deliverWebhook({ url: 'https://localhost:9/hook', secret: newWebhookSecret(), deliveryId: 'd', payload: { event: 'open', email: 'a@example.com', utr: 'u', timestamp: 't' } });
    expect(outcome.delivered).toBe(false);
    expect(outcome.detail).toMatch(/^localhost resolves to a non-public address/);
  });
});

describe('local targets', () => {
  beforeEach(() => runAs('local'));

  it('also takes plain http to this machine, and checks no addresses', async () => {
    expect(urlFormProblem('http://127.0.0.1:4000/hook')).toBeUndefined();
    expect(urlFormProblem('http://[::1]:4000/hook')).toBeUndefined();
    expect(urlFormProblem('http://192.168.1.5/hook')).toMatch(/^The url field must start with one of the following: https:\/\//);
    expect(await resolvesToPublicAddresses('http://127.0.0.1:4000/hook')).toBe(true);
    expect(webhookLookup()).toBeUndefined();
  });
});

describe('retries', () => {
  it('retry for more than 24 hours in eight attempts, no wait longer than SQS allows', () => {
    expect(maxDeliveryAttempts).toBe(retryDelaysSeconds.length + 1);
    expect(retryDelaysSeconds.reduce((sum, wait) => sum + wait, 0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(Math.max(...retryDelaysSeconds)).toBeLessThanOrEqual(43_200);
    expect([1, 2, 3, 7, 8].map(retryDelayAfter)).toEqual([60, 300, 1_800, 43_200, undefined]);
  });
});

describe('signature and secret', () => {
  beforeEach(() => runAs('aws'));

  const payload = { event: 'open' as const, email: 'a@example.com', utr: 'u-1', timestamp: '2026-01-01T00:00:00.000000Z' };

  it('makes secrets of whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs "<id>.<timestamp>.<body>" as Standard Webhooks do, and as before in the deprecated headers', () => {
    const secret = newWebhookSecret();
    const { body, headers } = signedRequest({ url: 'https://x.example.com', secret, payload, deliveryId: 'm-1', now: 1_700_000_000 });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(body).toBe(JSON.stringify(payload));
    expect(headers).toEqual({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'email-campaign-webhooks/1',
      'webhook-id': 'm-1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${createHmac('sha256', key).update(`m-1.1700000000.${body}`).digest('base64')}`,
      'x-webhook-id': 'm-1',
      'x-webhook-timestamp': '1700000000',
      'x-webhook-signature': `sha256=${createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex')}`,
    });
    // The library's own signer agrees.
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('m-1', new Date(1_700_000_000_000), body));
  });

  it('signs with a secret made before (whsec_ and 64 hex digits) as the library reads it: base64', () => {
    const secret = `whsec_${'0123456789abcdef'.repeat(4)}`;
    const { body, headers } = signedRequest({ url: 'https://x.example.com', secret, payload, deliveryId: 'm-2', now: 1_700_000_000 });
    expect(signingKeyOf(secret)).toHaveLength(48);
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('m-2', new Date(1_700_000_000_000), body));
    expect(webhookSignature(secret, 'm-2', '1700000000', body)).toBe(headers['webhook-signature']);
  });

  it('refuses a secret that is not base64 text rather than sign with part of it', () => {
    expect(() => signingKeyOf('whsec_not base64!')).toThrow('A webhook secret must be whsec_ and base64 text');
    expect(() => signingKeyOf('whsec_')).toThrow('A webhook secret must be whsec_ and base64 text');
  });

  it('seals a secret under the webhook secret key, which the token-signing key cannot replace', () => {
    const secret = newWebhookSecret();
    const stored = encryptSecret(secret);
    expect(stored).toMatch(/^v2\.[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(secret.slice(6));
    expect(encryptSecret(secret)).not.toBe(stored);
    expect(decryptSecret(stored)).toBe(secret);
    // Another token-signing key changes nothing; another webhook secret key opens nothing.
    process.env.TOKEN_SIGNING_KEY = 'another-signing-key-0123456789abcdef';
    resetConfig();
    expect(decryptSecret(stored)).toBe(secret);
    process.env.WEBHOOK_SECRET_KEY = 'another-webhook-key-0123456789abcdef';
    resetConfig();
    expect(() => decryptSecret(stored)).toThrow('Unreadable stored webhook secret (unknown format or webhook secret key)');
  });

  it('opens a sealed secret only with the key its id names', () => {
    const stored = encryptSecret(newWebhookSecret()).split('.');
    process.env.WEBHOOK_SECRET_KEY = JSON.stringify({ current: 'b', keys: { a: webhookKey, b: 'second-webhook-key-0123456789abcdefgh' } });
    resetConfig();
    const otherId = encryptSecret('x').split('.')[1];
    expect(() => decryptSecret([stored[0], otherId, ...stored.slice(2)].join('.'))).toThrow('Unreadable stored webhook secret');
  });

  it('keeps stored secrets readable when the webhook secret key is rotated', () => {
    const secret = newWebhookSecret();
    const stored = encryptSecret(secret);
    process.env.WEBHOOK_SECRET_KEY = JSON.stringify({ current: 'next', keys: { first: webhookKey, next: 'rotated-webhook-key-0123456789abcdefgh' } });
    resetConfig();
    expect(decryptSecret(stored)).toBe(secret);
    // New secrets are sealed with the current key.
    expect(encryptSecret(secret).split('.')[1]).not.toBe(stored.split('.')[1]);
  });

  it('leaves secrets sealed under the token-signing key (v1) to the re-seal, which opens them with that key', () => {
    const secret = hexSecret();
    const stored = sealedAsBefore(secret, signingKey);
    expect(isLegacySealed(stored)).toBe(true);
    expect(isLegacySealed(encryptSecret(secret))).toBe(false);
    expect(() => decryptSecret(stored)).toThrow('Unreadable stored webhook secret');
    expect(openLegacySecret(stored)).toBe(secret);
    // After a rotation of the token-signing key that keeps the old key in the set, too.
    process.env.TOKEN_SIGNING_KEY = JSON.stringify({ current: 'next', keys: { first: signingKey, next: 'rotated-signing-key-0123456789abcdefgh' } });
    resetConfig();
    expect(openLegacySecret(stored)).toBe(secret);
    process.env.TOKEN_SIGNING_KEY = 'another-signing-key-0123456789abcdef';
    resetConfig();
    expect(() => openLegacySecret(stored)).toThrow('Unreadable stored webhook secret (unknown format or signing key)');
  });
});
