// What reaches a function deployed: a multipart upload of the largest file accepted, with headers and
// query at API Gateway's limits, still makes an event Lambda takes; a larger body is refused by the
// function itself in the service's envelope.
import type { IncomingMessage } from 'node:http';
import { buildEvent } from '../../infra/local/gateway';
import { PayloadTooLargeError } from '../../shared/http/errors';
import { readRequest } from '../../shared/http/request';
import { eventRoomBytes, lambdaEventBytes, maxBodyBytes, maxFileBytes, multipartRoomBytes } from '../../shared/http/request-size';
import { findRoute } from '../../shared/routes';

/** API Gateway's limit of request line and headers together. */
const requestLineAndHeaders = 10 * 1024;

/** A request as Node hands it to the gateway, for buildEvent. */
function incoming(url: string, headers: [string, string][]): IncomingMessage {
  return {
    url,
    method: 'POST',
    httpVersion: '1.1',
    rawHeaders: headers.flat(),
    socket: { remoteAddress: '203.0.113.9', localPort: 443 },
  } as unknown as IncomingMessage;
}

/** The largest upload: a 70-character boundary (RFC 2046's longest), a 255-byte file name, the import's other field. */
function largestUpload(): { body: Buffer; boundary: string } {
  const boundary = 'b'.repeat(70);
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="contact_type_id"\r\n\r\n123456789\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${'f'.repeat(251)}.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.alloc(maxFileBytes, 0x61),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, boundary };
}

test('the limits leave room for the event beside a base64 body, and for the multipart framing beside the file', () => {
  expect(lambdaEventBytes).toBe(6_291_456);
  expect(maxBodyBytes).toBe(4_669_440);
  expect(Math.ceil(maxBodyBytes / 3) * 4 + eventRoomBytes).toBeLessThanOrEqual(lambdaEventBytes);
  expect(maxFileBytes).toBe(4_613_734);
  expect(maxFileBytes + multipartRoomBytes).toBeLessThanOrEqual(maxBodyBytes);
});

test('the largest file, with headers and query at API Gateway\'s limit and escaped, fits one Lambda event', () => {
  const { body, boundary } = largestUpload();
  const url = `/api/contacts/upload-csv?note=${'%22'.repeat(1000)}`;
  const headers: [string, string][] = [
    ['Host', 'abc123.execute-api.eu-west-1.amazonaws.com'],
    ['Content-Type', `multipart/form-data; boundary=${boundary}`],
    ['Content-Length', String(body.length)],
    ['PublicKey', 'p'.repeat(256)],
    ['SecretKey', 's'.repeat(256)],
  ];
  // Filled up to API Gateway's 10 KB with quotes, which JSON escapes to two bytes each.
  const used = () => `POST ${url} HTTP/1.1\r\n`.length + headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  headers.push(['X-Padding', '"'.repeat(requestLineAndHeaders - used() - 'X-Padding'.length - 4)]);
  expect(used()).toBe(requestLineAndHeaders);

  const route = findRoute('POST', 'contacts/upload-csv').match;
  const event = buildEvent(incoming(url, headers), body, route, 'b4d6a7e0-0000-4000-8000-000000000000', new Date());
  const eventBytes = Buffer.byteLength(JSON.stringify(event));

  expect(event.isBase64Encoded).toBe(true);
  expect(body.length - maxFileBytes).toBeLessThan(multipartRoomBytes);
  expect(eventBytes - (event.body as string).length).toBeLessThan(eventRoomBytes);
  expect(eventBytes).toBeLessThan(lambdaEventBytes);
});

test('the function refuses a body past the limit with 413, whatever reached it', async () => {
  const route = findRoute('POST', 'contacts/upload-csv').match;
  if (!route) throw new Error('no route');
  const event = (size: number) =>
    buildEvent(incoming('/api/contacts/upload-csv', [['Content-Type', 'application/octet-stream']]), Buffer.alloc(size, 0x61), route, 'b4d6a7e0-0000-4000-8000-000000000001', new Date());

  await expect(readRequest(event(maxBodyBytes + 1), route)).rejects.toEqual(new PayloadTooLargeError('Request body too large.'));
  await expect(readRequest(event(maxBodyBytes), route)).rejects.toMatchObject({ statusCode: 400, errors: 'Unsupported content type application/octet-stream.' });
});
