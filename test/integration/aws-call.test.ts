// The signed-call layer against a stub AWS endpoint: the answer parsed, errors named as the SDK names
// them, throttles and 5xx retried up to the caller's limit, client errors never retried, and a request
// on a pooled connection the server had closed resent once even when the caller allows one attempt.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsServiceError, awsCall, observeAwsCalls, type AwsRequest } from '../../shared/aws/call';

type Handler = (request: IncomingMessage & { body: string }, response: ServerResponse, call: number) => void;

let server: Server;
let endpoint: string;
let handler: Handler;
let calls = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(Object.assign(request, { body: Buffer.concat(chunks).toString('utf8') }), response, ++calls));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'session' });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});

beforeEach(() => {
  calls = 0;
});

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
  response.end(JSON.stringify(body));
};

function request(overrides: Partial<AwsRequest> = {}): AwsRequest {
  return {
    service: 'dynamodb',
    region: 'eu-west-1',
    operation: 'GetItem',
    method: 'POST',
    path: `${endpoint}/`,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
    body: { TableName: 't' },
    maxAttempts: 3,
    ...overrides,
  };
}

test('a signed JSON request comes back as the parsed answer', async () => {
  let seen: (IncomingMessage & { body: string }) | undefined;
  handler = (incoming, response) => {
    seen = incoming;
    json(response, 200, { Item: { pk: { S: 'A#1' } } });
  };

  const answer = await awsCall<{ Item: unknown }>(request());

  expect(answer).toEqual({ Item: { pk: { S: 'A#1' } } });
  expect(JSON.parse(seen?.body ?? '')).toEqual({ TableName: 't' });
  expect(seen?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/);
  expect(seen?.headers['x-amz-security-token']).toBe('session');
});

test('an error is named by its AWS type and keeps its status and fields', async () => {
  handler = (_incoming, response) =>
    json(response, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      message: 'Transaction cancelled',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
    }, { 'x-amzn-requestid': 'req-1' });

  const error = await awsCall(request()).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(AwsServiceError);
  expect(error).toMatchObject({
    name: 'TransactionCanceledException',
    message: 'Transaction cancelled',
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
    $metadata: { httpStatusCode: 400, requestId: 'req-1' },
  });
  expect(calls).toBe(1);
});

test('a REST error named only by its header is named the same way', async () => {
  handler = (_incoming, response) => json(response, 404, { Message: 'Schedule missing does not exist.' }, { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal.amazon.com/coral/' });

  await expect(awsCall(request({ service: 'scheduler', method: 'DELETE' }))).rejects.toMatchObject({
    name: 'ResourceNotFoundException',
    message: 'Schedule missing does not exist.',
  });
});

test('throttles and server errors are retried up to the limit, then the last error is thrown', async () => {
  handler = (_incoming, response, call) => {
    if (call === 1) return json(response, 400, { __type: 'ProvisionedThroughputExceededException', message: 'slow down' });
    if (call === 2) return json(response, 503, { __type: 'ServiceUnavailable', message: 'try again' });
    json(response, 200, { ok: true });
  };
  const attempts: number[] = [];
  const stop = observeAwsCalls((call) => attempts.push(call.attempt));

  const answer = await awsCall(request()).finally(stop);

  expect(answer).toEqual({ ok: true });
  expect(attempts).toEqual([1, 2, 3]);

  calls = 0;
  handler = (_incoming, response) => json(response, 500, { __type: 'InternalServerError', message: 'broken' });
  await expect(awsCall(request())).rejects.toMatchObject({ name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
  expect(calls).toBe(3);
});

test('a client error is never retried, and one attempt means one', async () => {
  handler = (_incoming, response) => json(response, 400, { __type: 'ValidationException', message: 'bad' });
  await expect(awsCall(request())).rejects.toMatchObject({ name: 'ValidationException' });
  expect(calls).toBe(1);

  calls = 0;
  handler = (_incoming, response) => json(response, 503, { __type: 'ServiceUnavailable', message: 'later' });
  await expect(awsCall(request({ maxAttempts: 1 }))).rejects.toMatchObject({ name: 'ServiceUnavailable' });
  expect(calls).toBe(1);
});

test('a request on a pooled connection the server dropped is resent once, even with one attempt allowed', async () => {
  // The first call answers and leaves the connection in the pool; the server then resets that
  // connection when the next request arrives on it, without answering, as a server does that closed
  // an idle connection at the moment it was reused.
  handler = (incoming, response, call) => {
    if (call === 2) {
      incoming.socket.resetAndDestroy();
      return;
    }
    json(response, 200, { call });
  };
  await awsCall(request({ maxAttempts: 1 }));

  const answer = await awsCall(request({ maxAttempts: 1 }));

  expect(answer).toEqual({ call: 3 });
});
