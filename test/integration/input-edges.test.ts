// Input that must never break the service: odd form keys, a broken escape in a path, an overlong
// credential header, bodies past a limit and a one-click POST in any encoding each get a 4xx in the
// envelope (or, for the one-click, still unsubscribe), and a refused request writes nothing.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as contactTypes } from '../../functions/contact-types/handler';
import { handler as fallback } from '../../functions/fallback/handler';
import { handler as globalUnsubscribes } from '../../functions/global-unsubscribes/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as templates } from '../../functions/templates/handler';
import { startGateway, type Gateway } from '../../infra/local/gateway';
import { formLimits } from '../../shared/http/form-keys';
import { isGloballyUnsubscribed, isInUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, handlerCaller, multipart, parsed, type Body, type Keys } from '../support/events';
import { newGroup, recipientToken, storedSingleSend } from '../support/recipient-pages';

const callContactTypes = handlerCaller(contactTypes);

function form(text: string): Body {
  return { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(text) };
}

/** The event API Gateway builds for a raw path the test support cannot route (a broken escape). */
function rawPathEvent(rawPath: string): APIGatewayProxyEventV2 {
  const event = apiEvent({ method: 'GET', path: 'assets/previews/blank.svg' });
  return { ...event, rawPath, routeKey: 'GET /api/assets/previews/{file}', requestContext: { ...event.requestContext, http: { ...event.requestContext.http, path: rawPath } } };
}

async function contactTypeCount(keys: Keys): Promise<number> {
  const { body } = await callContactTypes(keys, 'GET', 'contacts-type');
  return (body.message as { contactTypes: unknown[] }).contactTypes.length;
}

function expectFailure(result: { status: number; body: Record<string, unknown> }, status: number): void {
  expect(result.status).toBe(status);
  expect(result.body.status).toBe('failed');
  const { errors } = result.body;
  expect(typeof errors === 'string' || (typeof errors === 'object' && errors !== null)).toBe(true);
}

describe('form keys a client can get wrong', () => {
  it('answers `a[01]=x` with the operation’s own validation, not a 500', async () => {
    const keys = await newAccount();
    const result = await callContactTypes(keys, 'POST', 'contacts-type/add', { body: form('a[01]=x') });
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { name: ['The name field is required.'] } } });
    expect(await contactTypeCount(keys)).toBe(0);
  });

  it('answers ids under a non-canonical index with 422, not a 500', async () => {
    const keys = await newAccount();
    const result = await handlerCaller(globalUnsubscribes)(keys, 'POST', 'global-unsubscribes/bulk-delete', { body: form('strIds[01]=1&strIds[1]=2') });
    expectFailure(result, 422);
  });

  it.each([
    // A part header that long is past what busboy reads of one: the multipart body is malformed.
    ['nested past the depth limit', `a${'[]'.repeat(formLimits.depth + 1)}=x&name=Fine`, 400, 400],
    ['far past it (a key of 100,000 brackets)', `a${'[]'.repeat(50_000)}=x&name=Fine`, 413, 400],
  ])('refuses keys %s with a 4xx in the envelope and writes nothing', async (_case, text, status, multipartStatus) => {
    const keys = await newAccount();
    expectFailure(await callContactTypes(keys, 'POST', 'contacts-type/add', { body: form(text) }), status);
    const boundary = 'XdeepX';
    const deepMultipart = {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${text.split('=')[0]}"\r\n\r\nx\r\n--${boundary}--\r\n`),
    };
    expectFailure(await callContactTypes(keys, 'POST', 'contacts-type/add', { body: deepMultipart }), multipartStatus);
    expect(await contactTypeCount(keys)).toBe(0);
  });

  it('answers the same keys without credentials on POST public/preferences with a 4xx, not a 500', async () => {
    const page = await publicPages(apiEvent({ method: 'POST', path: 'public/preferences', body: form('a[01]=x&token=nonsense') }));
    expect(page.statusCode).toBe(400);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    const multipartPage = await publicPages(apiEvent({ method: 'POST', path: 'public/preferences', body: multipart({ 'a[01]': 'x', token: 'nonsense' }) }));
    expect(multipartPage.statusCode).toBe(400);
    const deep = parsed(await publicPages(apiEvent({ method: 'POST', path: 'public/preferences', body: form(`a${'[]'.repeat(formLimits.depth + 1)}=x`) })));
    expectFailure(deep, 400);
  });
});

describe('path parameters', () => {
  it('answers a malformed % escape with 400 in the envelope, not a 500', async () => {
    const result = parsed(await templates(rawPathEvent('/api/assets/previews/%E0%A4%A')));
    expect(result).toEqual({ status: 400, body: { status: 'failed', errors: 'The path is not valid percent-encoding.' } });
  });
});

describe('credential headers', () => {
  it('answers an overlong PublicKey with 401 Invalid credentials, not a 500', async () => {
    const keys = await newAccount();
    const variants: Record<string, string>[] = [
      { publickey: `pk_${'a'.repeat(5_000)}`, secretkey: keys.secret_key },
      { publickey: keys.public_key, secretkey: `sk_${'b'.repeat(5_000)}` },
      { PublicKey: 'é'.repeat(2_000), SecretKey: keys.secret_key },
    ];
    for (const headers of variants) {
      const result = parsed(await contactTypes(apiEvent({ method: 'GET', path: 'contacts-type', headers })));
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    }
  });
});

describe('bodies past a limit', () => {
  it('refuses a multipart body with too many fields with 413 and writes nothing, where it used to cut it silently', async () => {
    const keys = await newAccount();
    const fields: Record<string, string> = { name: 'Cut short' };
    for (let i = 0; i < formLimits.fields; i++) fields[`extra${i}`] = 'x';
    const result = await callContactTypes(keys, 'POST', 'contacts-type/add', { body: multipart(fields) });
    expect(result).toEqual({ status: 413, body: { status: 'failed', errors: `The body has more than ${formLimits.fields} fields.` } });
    expect(await contactTypeCount(keys)).toBe(0);
  });

  it('refuses a field value past the limit with 413, where it used to be truncated', async () => {
    const keys = await newAccount();
    const result = await callContactTypes(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'n'.repeat(formLimits.valueBytes + 1) }) });
    expect(result).toEqual({ status: 413, body: { status: 'failed', errors: 'The value of a field is larger than 1 MB.' } });
  });
});

describe('one-click unsubscribe in any encoding', () => {
  async function oneClickWith(token: string, body: Body | undefined): Promise<APIGatewayProxyStructuredResultV2> {
    const event = apiEvent({ method: 'POST', path: 'public/unsubscribe', query: { token }, ...(body ? { body } : {}) });
    if (body && body.contentType === '') delete event.headers['content-type'];
    return publicPages(event);
  }

  it.each([
    ['urlencoded', form('List-Unsubscribe=One-Click')],
    ['multipart', multipart({ 'List-Unsubscribe': 'One-Click' })],
    ['text/plain', { contentType: 'text/plain', body: Buffer.from('List-Unsubscribe=One-Click') }],
    ['sent without a content type', { contentType: '', body: Buffer.from('List-Unsubscribe=One-Click') }],
    ['broken multipart', { contentType: 'multipart/form-data; boundary=nothere', body: Buffer.from('List-Unsubscribe=One-Click') }],
    ['broken JSON', { contentType: 'application/json', body: Buffer.from('{"List-Unsubscribe":') }],
    ['absent', undefined],
  ])('unsubscribes when the body is %s', async (_case, body) => {
    const { account_id } = await newAccount();
    const group = await newGroup(account_id, 'Newsletter');
    const ref = await storedSingleSend(account_id, group.id);
    const result = await oneClickWith(recipientToken(ref, 'reader@example.com', group.id), body);
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('You are unsubscribed.\n');
    expect(await isInUnsubscribeGroup(account_id, group.id, 'reader@example.com')).toBe(true);
    expect(await isGloballyUnsubscribed(account_id, 'reader@example.com')).toBe(false);
  });
});

describe('the local gateway', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({ port: 0, quiet: true });
  });

  afterAll(async () => {
    await gateway.close();
  });

  /** A raw HTTP request, so paths and headers reach the gateway exactly as written. */
  function send(path: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; body: string }> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port: gateway.port, path, method: 'GET', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  it('answers a malformed % escape in a path parameter with 400 in the envelope', async () => {
    const answer = await send('/api/assets/previews/%E0%A4%A');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ status: 'failed', errors: 'The path is not valid percent-encoding.' });
  });

  it('answers an overlong PublicKey with 401 in the envelope', async () => {
    const keys = await newAccount();
    const answer = await send('/api/contacts-type', { ...authHeaders(keys), publickey: `pk_${'a'.repeat(5_000)}` });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ status: 'failed', errors: 'Invalid credentials.' });
  });

  it('answers a request it cannot parse with 400 in the envelope', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(gateway.port, '127.0.0.1', () => socket.end('GET /api/contacts-type HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n'));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(answer.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    expect(answer).toContain('content-type: application/json');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ status: 'failed', errors: 'Bad request.' });
  });

  it('answers headers larger than it reads with 431 in the envelope, not a bare status line', async () => {
    const answer = await send('/api/contacts-type', { publickey: 'p'.repeat(20_000), secretkey: 's' });
    expect(answer.status).toBe(431);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({ status: 'failed', errors: 'Request header fields too large.' });
  });
});

describe('paths under another prefix', () => {
  it('answers a route’s path below a prefix the API does not serve with 404, not the catch-all’s 500', async () => {
    const event = apiEvent({ method: 'GET', path: 'contacts-type' });
    const result = parsed(await fallback({ ...event, rawPath: '/x/api/contacts-type', routeKey: '$default' }));
    expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Not Found.' } });
  });
});
