// The request signer against AWS's published SigV4 test suite and, for the requests this service
// makes, against the SDK's own signer (@smithy/signature-v4) on identical inputs.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Credentials } from '../../shared/aws/credentials';
import { amzDate, signRequest, type SignableRequest } from '../../shared/aws/sigv4';

const exampleCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const suiteDate = new Date('2015-08-30T12:36:00Z');

const bytes = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

interface Case {
  name: string;
  service: string;
  request: SignableRequest;
  credentials: Credentials;
}

class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

async function sdkSignature(request: SignableRequest, service: string, credentials: Credentials, now: Date): Promise<string> {
  const signer = new SignatureV4({ service, region: 'eu-west-1', credentials, sha256: Sha256, applyChecksum: false });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      path: request.url.pathname,
      query: Object.fromEntries(request.url.searchParams),
      headers: { ...request.headers, host: request.url.host },
      body: request.body,
    },
    { signingDate: now },
  );
  return String(signed.headers.authorization);
}

test('get-vanilla from the AWS SigV4 test suite', () => {
  const headers = signRequest(
    { method: 'GET', url: new URL('https://example.amazonaws.com/'), headers: {}, body: '' },
    { region: 'us-east-1', service: 'service', credentials: exampleCredentials, now: suiteDate },
  );

  expect(headers['x-amz-date']).toBe('20150830T123600Z');
  expect(headers.authorization).toBe(
    'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
  );
});

test('the date is the basic ISO 8601 form in UTC', () => {
  expect(amzDate(new Date('2026-11-21T09:05:03.123Z'))).toBe('20261121T090503Z');
});

const cases: Case[] = [
  {
    name: 'a DynamoDB JSON call with a session token',
    service: 'dynamodb',
    request: {
      method: 'POST',
      url: new URL('https://dynamodb.eu-west-1.amazonaws.com/'),
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body: '{"TableName":"t","Key":{"pk":{"S":"A#1"}}}',
    },
    credentials: { ...exampleCredentials, sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//token+with/specials=' },
  },
  {
    name: 'an SES v2 send with non-ASCII content',
    service: 'ses',
    request: {
      method: 'POST',
      url: new URL('https://email.eu-west-1.amazonaws.com/v2/email/outbound-emails'),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Content: { Simple: { Subject: { Data: 'Zoë ✿ news' } } } }),
    },
    credentials: exampleCredentials,
  },
  {
    name: 'a scheduler delete with a query string and an escaped path',
    service: 'scheduler',
    request: {
      method: 'DELETE',
      url: new URL('https://scheduler.eu-west-1.amazonaws.com/schedules/single%20send-42?groupName=email-service&clientToken=a%2Fb%20c*'),
      headers: { 'content-type': 'application/json' },
      body: '',
    },
    credentials: exampleCredentials,
  },
];

test.each(cases)('$name is signed exactly as the SDK signs it', async ({ service, request, credentials }) => {
  const now = new Date('2026-11-21T10:11:12Z');

  const ours = signRequest(request, { region: 'eu-west-1', service, credentials, now });

  expect(ours.authorization).toBe(await sdkSignature(request, service, credentials, now));
  expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
});
