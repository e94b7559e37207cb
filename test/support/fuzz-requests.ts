// Random HTTP requests for the input fuzz test: a route's path (with odd path parameters), query
// strings, headers, credentials and bodies in every encoding the service reads, well-formed or not,
// plus a raw HTTP client that sends them to the local gateway exactly as generated.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { apiPrefix, type Route } from '../../shared/routes';

export interface FuzzRequest {
  [fc.toStringMethod]: () => string;
  method: string;
  /** Path and query as sent on the request line. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Which credentials the request carries, to tell the cases apart in a counterexample. */
  credentials: Credentials;
}

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type Credentials = 'valid' | 'other-account' | 'none' | 'wrong-secret' | 'only-public' | 'overlong' | 'garbage';

export interface FuzzKeys {
  account: { public_key: string; secret_key: string };
  otherAccount: { public_key: string; secret_key: string };
}

/** Field names the API reads (so random values reach validation and operations), and some it never reads. */
const knownNames = [
  'id', 'name', 'email', 'type', 'utr', 'token', 'file', 'limit', 'cursor', 'value', 'subject', 'description', 'action',
  'strIds', 'contact_type_id', 'contact_id', 'segment_id', 'sender_id', 'segment_name', 'select_field', 'select_operator',
  'first_name', 'last_name', 'alt_email', 'country', 'country_id', 'state_id', 'city_id', 'custom_field', 'field_name',
  'field_type', 'email_address', 'email_owner', 'group_name', 'group_id', 'is_display', 'unsubscribe_group_id',
  'unsubscribe_groups_id', 'automation_for', 'automation_name', 'exit_criteria', 'waiting_period', 'waiting_type',
  'single_send_name', 'recipient_id', 'exclude_specific_recipient_id', 'schedule_type', 'schedule_date', 'schedule_time',
  'template_id', 'template_html', 'template_json', 'from_name', 'from_email', 'reply_to_email', 'company_address',
  'zip_code', 'nickname', 'List-Unsubscribe', '__proto__', 'constructor', 'toString',
];

const asciiChar = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code));
const asciiText = (maxLength: number) => fc.string({ unit: asciiChar, maxLength });
const anyText = (maxLength: number) => fc.string({ unit: 'binary', maxLength });

/** A form or query key: a known name, bracketed the ways clients (and attackers) write them. */
const queryKey = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...knownNames) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...knownNames), fc.constantFrom('[]', '[0]', '[1]', '[01]', '[00]', '[x]', '[-1]', '[1e3]', '[9007199254740993]', '[age]', '[__proto__]', '][', '[')).map(([name, suffix]) => `${name}${suffix}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...knownNames), fc.integer({ min: 2, max: 12 })).map(([name, depth]) => `${name}${'[]'.repeat(depth)}`) },
  { weight: 2, arbitrary: anyText(12) },
);

/** Body keys also come past the name limit: very deep and very long. */
const fieldKey = fc.oneof({ weight: 12, arbitrary: queryKey }, { weight: 1, arbitrary: fc.constantFrom(`a${'[]'.repeat(3_000)}`, 'n'.repeat(300)) });

/** A value: ids that exist and that do not, emails, dates, JSON text, blanks and odd text. */
const shortValue = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -2, max: 4 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('9007199254740993', '1e3', '0x10', '1.5', 'NaN', ' 1 ', '') },
  { weight: 2, arbitrary: fc.constantFrom('a@b.co', 'A@B.CO, c@d.co', 'not-an-email', 'contacts_1', 'segments_1', 'contacts_x', 'welcome', 'custom') },
  { weight: 1, arbitrary: fc.constantFrom('2099-01-01', '12:30', '2020-13-45', '{"version":1,"blocks":[]}', '{"a":', '<p>((name))</p>', 'is', 'between', 'leave-group', 'unsubscribe-all') },
  { weight: 3, arbitrary: anyText(40) },
);

/** Bodies also carry long values (a query that long would only test Node's header limit). */
const fieldValue = fc.oneof({ weight: 12, arbitrary: shortValue }, { weight: 1, arbitrary: fc.constantFrom('x'.repeat(300), 'x'.repeat(70_000)) });

const formPairs = fc.array(fc.tuple(fieldKey, fieldValue), { maxLength: 8 });
const queryPairs = fc.array(fc.tuple(queryKey, shortValue), { maxLength: 6 });

const jsonObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...knownNames), anyText(8)),
  fc.oneof(fieldValue, fc.integer(), fc.array(fc.oneof(fc.integer({ min: -1, max: 3 }), fieldValue), { maxLength: 4 }), fc.jsonValue({ maxDepth: 3 })),
  { maxKeys: 8 },
);

function urlencoded(pairs: [string, string][]): string {
  return pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

interface BodyChoice {
  contentType?: string;
  body: Buffer;
}

function multipartBody(pairs: [string, string][], file: string | undefined, boundary: string): Buffer {
  const parts = pairs.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '')}"\r\n\r\n${value}\r\n`);
  if (file !== undefined) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="list.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n`);
  return Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
}

const csvFile = fc.oneof(
  fc.constantFrom('email\na@b.co\n', 'first_name,email\nAnn,ann@example.com\nBob,not-an-email\n', '', '"unclosed,quote\n'),
  anyText(60),
);

const body: fc.Arbitrary<BodyChoice | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: formPairs.map((pairs) => ({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from(urlencoded(pairs)) })) },
  { weight: 1, arbitrary: asciiText(40).map((text) => ({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from(text) })) },
  {
    weight: 3,
    arbitrary: fc.tuple(formPairs, fc.option(csvFile, { nil: undefined })).map(([pairs, file]) => ({
      contentType: 'multipart/form-data; boundary=FuzzBoundary',
      body: multipartBody(pairs, file, 'FuzzBoundary'),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(formPairs, fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=Other', 'multipart/form-data; boundary=FuzzBoundary')).map(([pairs, contentType]) => ({
      contentType,
      body: multipartBody(pairs, undefined, 'FuzzBoundary').subarray(0, -8),
    })),
  },
  { weight: 3, arbitrary: jsonObject.map((value) => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) })) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ contentType: 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(value) ?? 'null') })) },
  { weight: 1, arbitrary: fc.constantFrom('{"a":', `{"a":${'['.repeat(100)}${']'.repeat(100)}}`, '\u0000\u0001', '{}').map((text) => ({ contentType: 'application/json', body: Buffer.from(text) })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.option(fc.constantFrom('text/plain', 'application/xml', 'application/octet-stream', 'multipart/mixed', 'image/png', 'text/csv', 'application/json; charset=latin1', 'x'), { nil: undefined })).map(([bytes, contentType]) => ({
      ...(contentType === undefined ? {} : { contentType }),
      body: Buffer.from(bytes),
    })),
  },
);

/** A path parameter: a plausible value, an encoded one, or a broken escape. */
const pathSegment = fc.oneof(
  fc.constantFrom('blank.svg', '1.svg', 'x', '%E0%A4%A', '%', '%zz', '%2F..%2F', '..', 'a%00b', '%C3%A9'),
  anyText(16).filter((text) => text.length > 0).map(encodeURIComponent),
);

const query = fc.oneof(
  { weight: 3, arbitrary: queryPairs.map(urlencoded) },
  { weight: 1, arbitrary: fc.constantFrom('token=%E0%A4%A', 'limit=%', 'a=1&a=2&a=3', '&&=&', 'cursor=eyJ9', 'limit=1&cursor=x') },
);

const extraHeaders = fc.dictionary(fc.constantFrom('accept', 'user-agent', 'x-forwarded-for', 'authorization', 'cookie', 'x-api-key', 'origin', 'content-encoding'), asciiText(30), { maxKeys: 3 });

const credentials: fc.Arbitrary<Credentials> = fc.constantFrom('valid', 'valid', 'valid', 'valid', 'valid', 'other-account', 'none', 'wrong-secret', 'only-public', 'overlong', 'garbage');

function credentialHeaders(choice: Credentials, keys: FuzzKeys, garbage: string): Record<string, string> {
  const { account, otherAccount } = keys;
  switch (choice) {
    case 'valid':
      return { PublicKey: account.public_key, SecretKey: account.secret_key };
    case 'other-account':
      return { publickey: otherAccount.public_key, secretkey: otherAccount.secret_key };
    case 'none':
      return {};
    case 'wrong-secret':
      return { publickey: account.public_key, secretkey: otherAccount.secret_key };
    case 'only-public':
      return { publickey: account.public_key };
    case 'overlong':
      return { publickey: `pk_${'a'.repeat(3_000)}`, secretkey: account.secret_key };
    case 'garbage':
      return { publickey: garbage, secretkey: garbage };
  }
}

/** The route's path with each `{param}` replaced. */
function pathOf(route: Route, segment: string): string {
  return `${apiPrefix}${route.path.replace(/\{[^}]+\}/g, segment)}`;
}

/** Requests for one route: mostly its own method, sometimes another (405), with everything else random. */
export function requestsFor(route: Route, keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constant(route.method as string) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH') }),
      segment: pathSegment,
      trailingSlash: fc.boolean(),
      query: fc.option(query, { nil: undefined }),
      headers: extraHeaders,
      credentials,
      garbage: asciiText(40),
      body,
    })
    .map((choice) =>
      withDescription({
        method: choice.method,
        target: `${pathOf(route, choice.segment)}${choice.trailingSlash ? '/' : ''}${choice.query === undefined ? '' : `?${choice.query}`}`,
        headers: { ...choice.headers, ...credentialHeaders(choice.credentials, keys, choice.garbage), ...contentTypeHeader(choice.body) },
        ...(choice.body ? { body: choice.body.body } : {}),
        credentials: choice.credentials,
      }),
    );
}

/** Requests to paths no route has, under the API root and outside it. */
export function strayRequests(keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
      path: fc.oneof(
        fc.constantFrom('/', '/api', '/api/', '/api//contacts-type', '/api/contacts-type/%', '/x/api/contacts-type', '/api/%E0%A4%A/x'),
        anyText(20).map((text) => `${apiPrefix}${encodeURIComponent(text)}`),
      ),
      credentials,
      garbage: asciiText(20),
      body,
    })
    .map((choice) =>
      withDescription({
        method: choice.method,
        target: choice.path,
        headers: { ...credentialHeaders(choice.credentials, keys, choice.garbage), ...contentTypeHeader(choice.body) },
        ...(choice.body && choice.method !== 'GET' && choice.method !== 'HEAD' ? { body: choice.body.body } : {}),
        credentials: choice.credentials,
      }),
    );
}

function contentTypeHeader(choice: BodyChoice | undefined): Record<string, string> {
  return choice?.contentType === undefined ? {} : { 'content-type': choice.contentType };
}

/** A short, readable form of a request for a counterexample (a body can be 70 KB). */
function describe(request: Omit<FuzzRequest, typeof fc.toStringMethod>): string {
  const body = request.body ? ` body(${request.body.length} bytes): ${JSON.stringify(request.body.toString('latin1').slice(0, 400))}` : '';
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value.length > 60 ? `${value.slice(0, 60)}...(${value.length})` : value}`);
  return `${request.method} ${request.target.length > 300 ? `${request.target.slice(0, 300)}...(${request.target.length})` : request.target} [${headers.join('; ')}]${body}`;
}

export function withDescription(request: Omit<FuzzRequest, typeof fc.toStringMethod>): FuzzRequest {
  return { ...request, [fc.toStringMethod]: () => describe(request) };
}

/** Send a request as generated (no client-side normalisation beyond what HTTP/1.1 needs). */
export function sendRaw(port: number, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.target,
        headers: { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
