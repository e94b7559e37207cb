// The REST API's payload 1.0 enters the one pipeline as the 2.0 event the HTTP API would send, and the
// answer leaves in 1.0's format.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { httpHandler, publicOperation, type Operation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { fromRestEvent } from '../../shared/http/rest-event';
import { routesOf } from '../../shared/routes';

/** A REST API proxy event as API Gateway sends it (fields as in its documented example), for a request on stage `links`. */
function restEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/api/public/preferences',
    path: '/api/public/preferences',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: 'a=1; b=2', 'X-Forwarded-For': '203.0.113.7' },
    multiValueHeaders: { 'Content-Type': ['application/x-www-form-urlencoded'], Cookie: ['a=1; b=2'], 'X-Forwarded-For': ['203.0.113.7'], Accept: ['text/html', 'application/json'] },
    queryStringParameters: { token: 'two' },
    multiValueQueryStringParameters: { token: ['one', 'two'] },
    pathParameters: null,
    stageVariables: { function_public_pages: 'email-campaign-dev-public-pages' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: undefined,
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      httpMethod: 'POST',
      identity: { sourceIp: '203.0.113.7', userAgent: 'Mail/1.0' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: '/links/api/public/preferences',
      protocol: 'HTTP/1.1',
      requestId: 'req-1',
      requestTime: '12/Mar/2020:19:03:58 +0000',
      requestTimeEpoch: 1584039838000,
      resourceId: 'r1',
      resourcePath: '/api/public/preferences',
      stage: 'links',
    },
    body: Buffer.from('group=3').toString('base64'),
    isBase64Encoded: true,
    ...overrides,
  };
}

test('a 1.0 event becomes the 2.0 event of the same request: lower-case joined headers, cookies apart, the path below the stage', () => {
  expect(fromRestEvent(restEvent())).toEqual({
    version: '2.0',
    routeKey: 'POST /api/public/preferences',
    rawPath: '/api/public/preferences',
    rawQueryString: 'token=one&token=two',
    cookies: ['a=1', 'b=2'],
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7', accept: 'text/html,application/json' },
    queryStringParameters: { token: 'one,two' },
    stageVariables: { function_public_pages: 'email-campaign-dev-public-pages' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: 'POST', path: '/api/public/preferences', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'Mail/1.0' },
      requestId: 'req-1',
      routeKey: 'POST /api/public/preferences',
      stage: 'links',
      time: '12/Mar/2020:19:03:58 +0000',
      timeEpoch: 1584039838000,
    },
    body: Buffer.from('group=3').toString('base64'),
    isBase64Encoded: true,
  });
});

test("a family's handler reads a 1.0 event through the one pipeline and answers in 1.0's format", async () => {
  // Every operation of the family echoes what the pipeline read.
  const echo = publicOperation(async ({ request, route }) => ok({ operation: route.operation, query: request.query, fields: request.fields, ip: request.sourceIp }));
  const operations: Record<string, Operation> = Object.fromEntries(routesOf('public-pages').map((route) => [route.operation, echo]));
  const handler = httpHandler('public-pages', operations);

  const answered = await handler(restEvent());
  const missing = await handler(restEvent({ path: '/api/public/nowhere', resource: '/api/public/nowhere', httpMethod: 'GET', body: null, isBase64Encoded: false }));

  expect(answered).toEqual({
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ status: 'success', message: { operation: 'changePreferences', query: { token: 'one,two' }, fields: { group: '3' }, ip: '203.0.113.7' } }),
    isBase64Encoded: false,
  });
  expect(missing).toEqual({ statusCode: 404, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ status: 'failed', errors: 'Not Found.' }), isBase64Encoded: false });
});
