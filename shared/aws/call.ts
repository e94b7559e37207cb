// One signed HTTPS call to an AWS JSON API, with the SDK's behaviour where it matters to us: errors
// named by their AWS type with `$metadata.httpStatusCode`, retries with jittered backoff for throttles,
// 5xx answers and network faults (as many attempts as the caller allows), and keep-alive connections.
// This replaces the generated SDK clients in the Lambda bundles: they carried ~300 KB of protocol
// machinery for the handful of operations we call (see README, "Bundles").
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { credentials, localCredentials } from './credentials';
import { signRequest } from './sigv4';

export type AwsService = 'dynamodb' | 'sesv2' | 'sqs' | 'scheduler' | 'secretsmanager';

interface ServiceInfo {
  /** Endpoint host prefix, `<prefix>.<region>.amazonaws.com`. */
  host: string;
  /** SigV4 signing name. */
  signingName: string;
  /** The SDK's service id, for `AWS_ENDPOINT_URL_<ID>`. */
  envId: string;
}

const services: Record<AwsService, ServiceInfo> = {
  dynamodb: { host: 'dynamodb', signingName: 'dynamodb', envId: 'DYNAMODB' },
  sesv2: { host: 'email', signingName: 'ses', envId: 'SESV2' },
  sqs: { host: 'sqs', signingName: 'sqs', envId: 'SQS' },
  scheduler: { host: 'scheduler', signingName: 'scheduler', envId: 'SCHEDULER' },
  secretsmanager: { host: 'secretsmanager', signingName: 'secretsmanager', envId: 'SECRETS_MANAGER' },
};

/** The service's endpoint: an explicit one, `AWS_ENDPOINT_URL_<ID>`, `AWS_ENDPOINT_URL`, else the regional one. */
export function serviceEndpoint(service: AwsService, region: string, explicit?: string): string {
  const info = services[service];
  const configured = explicit ?? process.env[`AWS_ENDPOINT_URL_${info.envId}`] ?? process.env.AWS_ENDPOINT_URL;
  if (configured) return configured;
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://${info.host}.${region}.${suffix}`;
}

/** An error an AWS service answered with, shaped like the SDK's: `name` is the AWS error type. */
export class AwsServiceError extends Error {
  readonly $metadata: { httpStatusCode?: number; requestId?: string };
  [field: string]: unknown;

  constructor(name: string, message: string, statusCode: number | undefined, requestId: string | undefined, fields: Record<string, unknown> = {}) {
    super(message);
    Object.assign(this, fields);
    this.name = name;
    this.$metadata = { httpStatusCode: statusCode, requestId };
  }
}

export interface AwsRequest {
  service: AwsService;
  region: string;
  /** The operation's name, for errors and the call observers. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A full URL, or a path and query resolved against the service endpoint. */
  path: string;
  /** An explicit endpoint (DynamoDB Local, the SES sink); such calls sign with fixed local credentials. */
  endpoint?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Attempts in all; 1 means never retry (except a request that provably never left, see below). */
  maxAttempts: number;
  /** Per-attempt limit on connection idleness, in milliseconds. */
  timeoutMs?: number;
}

export interface AwsCall {
  service: AwsService;
  operation: string;
  attempt: number;
}

const observers = new Set<(call: AwsCall) => void>();

/** Be told of every HTTP attempt (the benchmark counts DynamoDB round trips with it). Returns the unsubscribe. */
export function observeAwsCalls(observer: (call: AwsCall) => void): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A network fault; `unsent` when the request provably never reached the service (see `send`). */
class NetworkError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly unsent: boolean,
  ) {
    super(message);
    this.name = code === 'TimeoutError' ? 'TimeoutError' : 'NetworkError';
  }
}

function send(url: URL, method: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<RawResponse> {
  const https = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const call = (https ? httpsRequest : httpRequest)(url, { method, headers, agent: https ? agents.https : agents.http }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => reject(new NetworkError((error as NodeJS.ErrnoException).code ?? 'ERESPONSE', error.message, false)));
    });
    call.setTimeout(timeoutMs, () => call.destroy(new NetworkError('TimeoutError', `no answer from ${url.host} within ${timeoutMs} ms`, false)));
    call.on('error', (error) => {
      if (error instanceof NetworkError) return reject(error);
      const code = (error as NodeJS.ErrnoException).code ?? 'ENETWORK';
      // A pooled keep-alive socket the server closed while idle: the reset arrives before any answer,
      // and the server never read the request (Node's documented case for a safe retry).
      const unsent = call.reusedSocket && code === 'ECONNRESET';
      reject(new NetworkError(code, `${code} calling ${url.host}: ${error.message}`, unsent));
    });
    call.end(body);
  });
}

const throttleNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'RequestThrottled',
  'SlowDown',
]);

function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (!(error instanceof AwsServiceError)) return false;
  const status = error.$metadata.httpStatusCode ?? 0;
  return throttleNames.has(error.name) || status >= 500 || status === 429;
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` or `Name:http://...` -> the name. */
function errorName(raw: string): string {
  return (raw.split('#').pop() ?? raw).split(':')[0] ?? raw;
}

function serviceError(request: AwsRequest, response: RawResponse): AwsServiceError {
  let fields: Record<string, unknown>;
  try {
    fields = response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
  } catch {
    // Not JSON (a proxy's error page, say): the status and the header still name the failure.
    fields = {};
  }
  const header = response.headers['x-amzn-errortype'];
  const type = String(fields.__type ?? fields.code ?? fields.Code ?? (typeof header === 'string' ? header : '') ?? '');
  const name = type ? errorName(type) : `${request.operation}Failed`;
  const message = String(fields.message ?? fields.Message ?? `${request.operation} failed with HTTP ${response.status}`);
  const { __type: _type, message: _m, Message: _M, ...rest } = fields;
  const requestId = response.headers['x-amzn-requestid'];
  return new AwsServiceError(name, message, response.status, typeof requestId === 'string' ? requestId : undefined, rest);
}

const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/** Full-jitter exponential backoff: 0..min(5 s, 100 ms * 2^(attempt-1)). */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(5_000, 100 * 2 ** (attempt - 1));
}

/** Sign and send; the parsed JSON answer (an empty object for an empty body), or the service's error. */
export async function awsCall<T>(request: AwsRequest): Promise<T> {
  const base = serviceEndpoint(request.service, request.region, request.endpoint);
  const url = /^https?:\/\//.test(request.path) ? new URL(request.path) : new URL(request.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  for (let attempt = 1; ; attempt++) {
    for (const observer of observers) observer({ service: request.service, operation: request.operation, attempt });
    const signed = signRequest(
      { method: request.method, url, headers: { ...request.headers, 'content-length': String(Buffer.byteLength(body)) }, body },
      {
        region: request.region,
        service: services[request.service].signingName,
        credentials: request.endpoint ? localCredentials : await credentials(),
      },
    );
    let failure: unknown;
    try {
      const response = await send(url, request.method, signed, body, request.timeoutMs ?? 30_000);
      if (response.status >= 200 && response.status < 300) return (response.body ? JSON.parse(response.body) : {}) as T;
      failure = serviceError(request, response);
    } catch (error) {
      failure = error;
    }
    const unsent = failure instanceof NetworkError && failure.unsent;
    if (!(unsent || (attempt < request.maxAttempts && isRetryable(failure)))) throw failure;
    if (attempt >= request.maxAttempts + 1) throw failure;
    await sleep(unsent ? 0 : backoffMs(attempt));
  }
}
