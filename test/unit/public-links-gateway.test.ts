// The local stand-in of the public links' REST API: WAF's rate rule (each address's requests over the
// trailing minute, refused ones counted too, refused while over the limit and let in once its last
// minute is back at it), and the payload 1.0 event it hands the handlers.
import type { IncomingMessage } from 'node:http';
import { buildRestEvent, ClientLimit } from '../../infra/local/public-links-gateway';
import { fromRestEvent } from '../../shared/http/rest-event';
import { linkRoutes, type Route } from '../../shared/routes';

test('an address is refused past its limit in the trailing minute, alone, and let in once that minute falls under it', () => {
  let now = 1_000;
  const limit = new ClientLimit(3, () => now);
  const take = (address: string, times: number) => Array.from({ length: times }, () => limit.take(address));

  expect(take('192.0.2.1', 4)).toEqual([false, false, false, true]);
  expect(take('192.0.2.2', 1)).toEqual([false]);
  now += 59;
  // Still within the minute of the first four: refused, and counted.
  expect(take('192.0.2.1', 1)).toEqual([true]);
  now += 1;
  // The first four have left the window; the refused one of a second ago has not.
  expect(take('192.0.2.1', 3)).toEqual([false, false, true]);
});

test("a request below /links/api/ becomes the REST API's payload 1.0 event, the client's X-Forwarded-For extended as API Gateway does", () => {
  const request = {
    url: '/links/api/public/open?token=a%2Bb&token=c',
    method: 'GET',
    httpVersion: '1.1',
    headers: { host: 'localhost:3000', 'x-forwarded-for': '198.51.100.9' },
    rawHeaders: ['Host', 'localhost:3000', 'x-forwarded-for', '198.51.100.9'],
    socket: { remoteAddress: '::ffff:127.0.0.2', localPort: 3000 },
  } as unknown as IncomingMessage;
  const route = linkRoutes.find((candidate) => candidate.path === 'public/open') as Route;

  const event = buildRestEvent(request, Buffer.alloc(0), route, {}, 'req-1', new Date(0), '01/Jan/1970:00:00:00 +0000');

  expect(event).toMatchObject({
    resource: '/api/public/open',
    path: '/api/public/open',
    httpMethod: 'GET',
    headers: { Host: 'localhost:3000', 'X-Forwarded-For': '198.51.100.9, 127.0.0.2', 'X-Forwarded-Port': '3000', 'X-Forwarded-Proto': 'http' },
    queryStringParameters: { token: 'c' },
    multiValueQueryStringParameters: { token: ['a+b', 'c'] },
    pathParameters: null,
    requestContext: { path: '/links/api/public/open', stage: 'links', identity: { sourceIp: '127.0.0.2' }, requestId: 'req-1' },
    body: null,
    isBase64Encoded: false,
  });
  expect(fromRestEvent(event).headers['x-forwarded-for']).toBe('198.51.100.9, 127.0.0.2');
});
