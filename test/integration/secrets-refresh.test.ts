// The token-signing key (and, where given, the webhook secret key) is read from Secrets Manager (the real SDK client, against a stub endpoint
// here) once per container and again once it is `secretRefreshMs` old, so a rotation's new key set
// reaches every warm container without a redeploy; a failed refresh keeps the key already read, and
// a malformed key set breaks no link.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config, resetConfig } from '../../shared/config';
import { loadSecrets, secretRefreshMs } from '../../shared/secrets';
import { recipientToken, verifyRecipientToken } from '../../shared/public-links/recipient-links';
import type { SendRef } from '../../shared/ledger/send-ref';
import { parseKeySetting } from '../../shared/key-set';
import { parseTokenKeys } from '../../shared/signed-token';
import { decryptSecret, encryptSecret } from '../../shared/webhooks/secret';
import { resetClock, setClock } from '../../shared/time';

const oldKey = 'old-key-0123456789abcdef0123456789abcdef';
const newKey = 'new-key-fedcba9876543210fedcba9876543210';
const ref: SendRef = { kind: 'single-send', accountId: 5, utr: 'b1c2d3e4-0000-4000-8000-000000000001' };
const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:token-signing-key';
const webhookKeyArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:webhook-secret-key';
const webhookKeyValue = 'webhook-key-0123456789abcdef0123456789abcdef';

let server: Server;
let secretValue = oldKey;
let failing = false;
const requests: { target: string; body: Record<string, unknown> }[] = [];
const saved = { ...process.env };

/** Answers GetSecretValue as Secrets Manager does (JSON 1.1 protocol), or 500 while `failing`. */
function startStub(): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push({ target: String(request.headers['x-amz-target']), body });
      if (failing) {
        response.writeHead(500, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'InternalServiceError' });
        response.end(JSON.stringify({ message: 'unavailable' }));
        return;
      }
      const value = body.SecretId === webhookKeyArn ? webhookKeyValue : secretValue;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: body.SecretId, Name: 'key', SecretString: value, VersionId: 'v' }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

let now = Date.UTC(2030, 5, 1, 12, 0, 0);
const advance = (ms: number) => {
  now += ms;
};

beforeAll(async () => {
  const endpoint = await startStub();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_MAX_ATTEMPTS: '1',
    TOKEN_SIGNING_KEY_SECRET_ARN: secretArn,
  });
  delete process.env.TOKEN_SIGNING_KEY;
  resetConfig();
  setClock(() => new Date(now));
});

afterAll(async () => {
  resetClock();
  process.env = saved;
  resetConfig();
  await new Promise((resolve) => server.close(resolve));
});

test('reads the key once, then again only once it is old, and a refresh that fails keeps the key', async () => {
  // Prepare: the first invocation reads the plain key and mails a link with it.
  await Promise.all([loadSecrets(), loadSecrets()]);
  expect(requests).toEqual([{ target: 'secretsmanager.GetSecretValue', body: { SecretId: secretArn } }]);
  expect(config().tokenSigningKey).toBe(oldKey);
  const mailed = recipientToken(ref, 'reader@example.com', null);

  // Act: the operator stores a key set whose current key is new (the old one kept).
  secretValue = JSON.stringify({ current: '2030-06', keys: { '2030-01': oldKey, '2030-06': newKey } });
  advance(secretRefreshMs - 1000);
  await loadSecrets();

  // Assess: too soon to read again.
  expect(requests).toHaveLength(1);
  expect(config().tokenSigningKey).toBe(oldKey);

  // Act: once the key is old, the next invocation reads the set.
  advance(1000);
  await loadSecrets();

  // Assess: new links use the new key; the link mailed before still works.
  expect(requests).toHaveLength(2);
  expect(recipientToken(ref, 'reader@example.com', null).startsWith(`2${parseTokenKeys(newKey).current.id}.`)).toBe(true);
  expect(verifyRecipientToken(mailed).valid).toBe(true);

  // Act: Secrets Manager fails when the set is next due.
  failing = true;
  advance(secretRefreshMs);
  await expect(loadSecrets()).resolves.toBeUndefined();

  // Assess: the set already read stays in use, and the next invocation tries again.
  const inUse = secretValue;
  expect(config().tokenSigningKey).toBe(inUse);
  failing = false;
  const before = requests.length;
  secretValue = '{"current":"2030-06","keys":{"2030-06":"too short"}}';
  await loadSecrets();
  expect(requests.length).toBe(before + 1);

  // Assess: a malformed key set breaks no link: the keys read before stay in use.
  expect(verifyRecipientToken(mailed).valid).toBe(true);
  expect(recipientToken(ref, 'reader@example.com', null).startsWith(`2${parseTokenKeys(newKey).current.id}.`)).toBe(true);
});

test('a function given only the webhook secret key (the deliverer) reads that secret alone, and opens what was sealed with it', async () => {
  // Prepare: the deliverer's environment names the webhook secret key's secret and no other.
  delete process.env.TOKEN_SIGNING_KEY_SECRET_ARN;
  process.env.WEBHOOK_SECRET_KEY_SECRET_ARN = webhookKeyArn;
  advance(secretRefreshMs);
  requests.length = 0;

  await loadSecrets();

  expect(requests).toEqual([{ target: 'secretsmanager.GetSecretValue', body: { SecretId: webhookKeyArn } }]);
  expect(config().webhookSecretKey).toBe(webhookKeyValue);
  const stored = encryptSecret('whsec_c2VjcmV0');
  expect(stored.split('.').slice(0, 2)).toEqual(['v2', parseKeySetting('WEBHOOK_SECRET_KEY', webhookKeyValue).current.id]);
  expect(decryptSecret(stored)).toBe('whsec_c2VjcmV0');
});
