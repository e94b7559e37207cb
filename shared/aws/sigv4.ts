// AWS Signature Version 4 for the JSON APIs this service calls (DynamoDB, SES v2, SQS, EventBridge
// Scheduler, Secrets Manager): the canonical request, the string to sign and the derived key, as
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html gives them.
import { createHash, createHmac } from 'node:crypto';
import type { Credentials } from './credentials';

export interface SignableRequest {
  method: string;
  url: URL;
  /** Headers to send; every one of them is signed. Names may be in any case. */
  headers: Record<string, string>;
  body: string;
}

export interface SigningScope {
  region: string;
  /** The signing name: `dynamodb`, `ses`, `sqs`, `scheduler`, `secretsmanager`. */
  service: string;
  credentials: Credentials;
  now?: Date;
}

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding: encodeURIComponent leaves `!'()*` alone, SigV4 does not. */
function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Services other than S3 sign each path segment encoded once more than it is sent. */
function canonicalPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => encode(segment))
    .join('/');
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search]
    .map(([key, value]) => [encode(key), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

// The derived key changes once a day per region and service; deriving it is four HMACs.
const keyCache = new Map<string, Buffer>();

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const cacheKey = `${secret}\n${day}\n${region}\n${service}`;
  let key = keyCache.get(cacheKey);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
    if (keyCache.size > 32) keyCache.clear();
    keyCache.set(cacheKey, key);
  }
  return key;
}

/** `20150830T123600Z` */
export function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * The headers to send: the request's own plus `host`, `x-amz-date`, the session token when there is
 * one, and `authorization`.
 */
export function signRequest(request: SignableRequest, scope: SigningScope): Record<string, string> {
  const date = amzDate(scope.now ?? new Date());
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers.host = request.url.host;
  headers['x-amz-date'] = date;
  if (scope.credentials.sessionToken) headers['x-amz-security-token'] = scope.credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${(headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath(request.url.pathname || '/'),
    canonicalQuery(request.url.searchParams),
    canonicalHeaders,
    signedHeaders,
    sha256Hex(request.body),
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signature = createHmac('sha256', signingKey(scope.credentials.secretAccessKey, day, scope.region, scope.service))
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${scope.credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
