// The local gateway over real HTTP: the payload 2.0 event it builds (as API Gateway HTTP APIs do),
// how it writes handler results, and its own answers (500 on a crash, 413 past what reaches Lambda).
import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { startGateway, type Gateway, type HttpHandler } from '../../infra/local/gateway';
import { lambdaEventBytes, maxBodyBytes } from '../../shared/http/request-size';

let gateway: Gateway;
const events: APIGatewayProxyEventV2[] = [];
const logLines: string[] = [];
let contactTypesAnswer: HttpHandler = async () => ({ statusCode: 200, body: '{}' });

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A raw HTTP request, so repeated headers really travel as separate lines. */
function send(method: string, path: string, options: { headers?: Record<string, string | string[]>; body?: Buffer | string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: gateway.port, method, path, headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const lastEvent = () => events[events.length - 1] as APIGatewayProxyEventV2;

beforeAll(async () => {
  const record =
    (answer: () => HttpHandler): HttpHandler =>
    async (event, context) => {
      events.push(event);
      return answer()(event, context);
    };
  gateway = await startGateway({
    port: 0,
    log: (line) => logLines.push(line),
    handlers: {
      'contact-types': record(() => contactTypesAnswer),
      templates: record(() => async () => ({ statusCode: 200, body: '' })),
      fallback: record(() => async () => ({ statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"status":"failed","errors":"Not found"}' })),
    },
  });
});

afterAll(async () => {
  await gateway.close();
});

beforeEach(() => {
  contactTypesAnswer = async () => ({ statusCode: 200, body: '{}' });
});

test('a routed GET becomes a payload 2.0 event like API Gateway sends', async () => {
  // Act
  const reply = await send('GET', '/api/contacts-type?a=1&a=2&name=x%20y&flag', {
    headers: { PublicKey: 'pk_1', 'X-Multi': ['one', 'two'], Cookie: 'c1=v1; c2=v2', 'User-Agent': 'jest' },
  });

  // Assess
  expect(reply.status).toBe(200);
  const event = lastEvent();
  expect(event).toMatchObject({
    version: '2.0',
    routeKey: 'GET /api/contacts-type',
    rawPath: '/api/contacts-type',
    rawQueryString: 'a=1&a=2&name=x%20y&flag',
    queryStringParameters: { a: '1,2', name: 'x y', flag: '' },
    cookies: ['c1=v1', 'c2=v2'],
    isBase64Encoded: false,
    requestContext: {
      accountId: expect.any(String),
      apiId: 'local',
      domainName: `127.0.0.1:${gateway.port}`,
      http: { method: 'GET', path: '/api/contacts-type', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      routeKey: 'GET /api/contacts-type',
      stage: '$default',
      time: expect.stringMatching(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/),
      timeEpoch: expect.any(Number),
    },
  });
  expect(event.headers).toMatchObject({ publickey: 'pk_1', 'x-multi': 'one,two', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http' });
  expect(event.headers).not.toHaveProperty('cookie');
  expect(event.body).toBeUndefined();
  expect(reply.headers['apigw-requestid']).toBe(event.requestContext.requestId);
  expect(logLines[logLines.length - 1]).toMatch(/^GET \/api\/contacts-type 200 \d+ms$/);
});

test('a route with a path parameter gets its templated route key and the decoded parameter', async () => {
  await send('GET', '/api/assets/previews/spring%20sale.png');

  expect(lastEvent()).toMatchObject({
    routeKey: 'GET /api/assets/previews/{file}',
    rawPath: '/api/assets/previews/spring%20sale.png',
    pathParameters: { file: 'spring sale.png' },
  });
});

test('JSON and text bodies arrive as text; form, multipart and untyped bodies as base64', async () => {
  const cases: Array<{ type?: string; base64: boolean }> = [
    { type: 'application/json; charset=utf-8', base64: false },
    { type: 'text/plain', base64: false },
    { type: 'application/x-www-form-urlencoded', base64: true },
    { type: 'multipart/form-data; boundary=xyz', base64: true },
    { type: 'application/octet-stream', base64: true },
    { base64: true },
  ];
  const body = Buffer.from('{"name":"Zoë"}\u0000\u00ff', 'utf8');
  for (const { type, base64 } of cases) {
    await send('POST', '/api/contacts-type/add', { headers: type ? { 'Content-Type': type } : {}, body });
    const event = lastEvent();
    expect({ type, isBase64Encoded: event.isBase64Encoded }).toEqual({ type, isBase64Encoded: base64 });
    expect(Buffer.from(event.body ?? '', base64 ? 'base64' : 'utf8')).toEqual(body);
  }
});

test('unknown paths, wrong methods and paths outside /api/ go to the fallback with $default', async () => {
  const replies = [await send('GET', '/api/no-such-thing'), await send('PUT', '/api/contacts-type'), await send('GET', '/elsewhere')];

  expect(replies.map((reply) => reply.status)).toEqual([404, 404, 404]);
  expect(events.slice(-3).map((event) => [event.routeKey, event.rawPath])).toEqual([
    ['$default', '/api/no-such-thing'],
    ['$default', '/api/contacts-type'],
    ['$default', '/elsewhere'],
  ]);
});

test('a structured result is written back: status, headers, cookies, base64 body decoded', async () => {
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  contactTypesAnswer = async () => ({
    statusCode: 201,
    headers: { 'content-type': 'application/octet-stream', 'x-count': 3 },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
    body: bytes.toString('base64'),
    isBase64Encoded: true,
  });

  const reply = await send('GET', '/api/contacts-type');

  expect(reply.status).toBe(201);
  expect(reply.headers['x-count']).toBe('3');
  expect(reply.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
  expect(reply.body).toEqual(bytes);
});

test('a handler that throws becomes a 500 in our envelope', async () => {
  contactTypesAnswer = async () => {
    throw new Error('boom');
  };
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);

  const reply = await send('GET', '/api/contacts-type');

  errors.mockRestore();
  expect(reply.status).toBe(500);
  expect(JSON.parse(reply.body.toString())).toEqual({ status: 'failed', errors: 'Internal server error.' });
});

test('a body past what reaches Lambda (base64 in a 6 MB event) is refused with 413 before any handler runs', async () => {
  const before = events.length;

  // 4.5 to 10 MB passed API Gateway's own 10 MB, and so this gateway, yet never reaches a function deployed.
  for (const size of [maxBodyBytes + 1, 5 * 1024 * 1024, 10 * 1024 * 1024 + 1]) {
    const oversized = Buffer.alloc(size, 97);
    const declared = await send('POST', '/api/contacts-type/add', { headers: { 'Content-Type': 'application/octet-stream' }, body: oversized });
    const streamed = await send('POST', '/api/contacts-type/add', { headers: { 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' }, body: oversized });

    for (const reply of [declared, streamed]) {
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body.toString())).toEqual({ status: 'failed', errors: 'Request body too large.' });
    }
  }
  expect(events.length).toBe(before);
});

test('a body right at the limit reaches the handler base64-encoded, in an event Lambda takes', async () => {
  const body = Buffer.alloc(maxBodyBytes, 97);

  const reply = await send('POST', '/api/contacts-type/add', { headers: { 'Content-Type': 'application/octet-stream' }, body });

  expect(reply.status).toBe(200);
  expect(lastEvent()).toMatchObject({ isBase64Encoded: true, body: body.toString('base64') });
  expect(Buffer.byteLength(JSON.stringify(lastEvent()))).toBeLessThan(lambdaEventBytes);
});

test('a text body within the limit whose escaped event passes 6 MB is refused with 413', async () => {
  const before = events.length;
  // Each quote is escaped in the event: 4 MB of JSON becomes about 8 MB there.
  const body = JSON.stringify({ name: '"'.repeat(2 * 1024 * 1024) });

  const reply = await send('POST', '/api/contacts-type/add', { headers: { 'Content-Type': 'application/json' }, body });

  expect(Buffer.byteLength(body)).toBeLessThan(maxBodyBytes);
  expect(reply.status).toBe(413);
  expect(JSON.parse(reply.body.toString())).toEqual({ status: 'failed', errors: 'Request body too large.' });
  expect(events.length).toBe(before);
});

test('the local health endpoint answers without a function', async () => {
  const reply = await send('GET', '/_local/health');

  expect(reply.status).toBe(200);
  expect(JSON.parse(reply.body.toString())).toEqual({ status: 'ok' });
});
