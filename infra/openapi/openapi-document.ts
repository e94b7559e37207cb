// The OpenAPI 3.1 document of the API, generated from the routing table (shared/routes.ts): every
// route with its authentication, request encodings, path parameters, the fields it reads (from the
// operations' own validation rules, request-schemas.ts), what each answers on success (its records and
// texts, response-schemas.ts) and the envelopes the pipeline answers with.
// What the table cannot say (responses that are not JSON) comes from a map keyed by route key below,
// checked against the table by test/infra/openapi.test.ts.
import { alreadyConfirmedMessage, noOptInSenderMessage, resendTooSoonMessage } from '../../functions/contacts/confirmation-operations';
import { apiPrefix, routeKey, routes, type Route } from '../../shared/routes';
import { objectSchema, requestFields, type RequestFields } from './request-schemas';
import { recordSchemas, successSchemas } from './response-schemas';

type Schema = Record<string, unknown>;

/** Responses outside the JSON envelope, by route key: their media type and what they are. */
export const rawResponses: Readonly<Record<string, { mediaType: string; description: string }>> = {
  'GET /api/contacts/csv-sample/download': { mediaType: 'text/csv', description: 'A sample CSV file for contact uploads.' },
  'GET /api/public/open': { mediaType: 'image/gif', description: 'The 1x1 open-tracking pixel; the open is counted.' },
  'GET /api/public/click': { mediaType: 'text/html', description: 'A tracked link: 302 to its original target (Location), the click counted (a person\'s or a bot\'s); a link we did not sign answers 400 with an HTML page.' },
  'HEAD /api/public/click': { mediaType: 'text/html', description: 'A tracked link probed by a scanner: the GET\'s answer without a body, counted as a bot\'s click.' },
  'GET /api/public/preferences': { mediaType: 'text/html', description: 'The recipient\'s unsubscribe preferences page.' },
  'POST /api/public/preferences': { mediaType: 'text/html', description: 'The page confirming the changed preferences.' },
  'GET /api/public/unsubscribe': { mediaType: 'text/html', description: 'The unsubscribe preferences page (the List-Unsubscribe link).' },
  'POST /api/public/unsubscribe': { mediaType: 'text/plain', description: 'RFC 8058 one-click unsubscribe: the recipient is unsubscribed.' },
  'GET /api/assets/previews/{file}': { mediaType: 'image/svg+xml', description: 'A design template\'s preview image.' },
  'GET /api/public/senders/confirm': { mediaType: 'text/html', description: 'The page with the button that confirms a sender\'s address; opening it changes nothing.' },
  'POST /api/public/senders/confirm': { mediaType: 'text/html', description: 'The button\'s form: the sender\'s address is confirmed.' },
  'GET /api/public/opt-in/confirm': { mediaType: 'text/html', description: 'The page a double opt-in confirmation mail links to, with the button; opening it changes nothing.' },
  'POST /api/public/opt-in/confirm': { mediaType: 'text/html', description: 'The button\'s form: the contact\'s subscription is confirmed.' },
  'GET /api/public/senders/verified': { mediaType: 'text/html', description: 'Where SES\'s verification mail leads once the address is verified (deployed).' },
  'GET /api/public/senders/verification-failed': { mediaType: 'text/html', description: 'Where SES\'s verification mail leads when its link failed or expired (deployed).' },
  'GET /api/automations/schedule/design/{token}': { mediaType: 'text/html', description: 'An automation step\'s design, rendered.' },
  'GET /api/automations/schedule/image/{token}': { mediaType: 'text/html', description: 'An automation step\'s preview.' },
  'GET /api/openapi.json': { mediaType: 'application/json', description: 'This document, naming the API that served it as its server.' },
  'GET /api/docs': { mediaType: 'text/html', description: 'The interactive viewer of this document (Swagger UI, served by the API itself).' },
  'GET /api/docs/{file}': { mediaType: 'text/javascript', description: 'The viewer\'s files: its script, style sheet and licence texts.' },
};

/** Routes whose unknown record is answered in the validation shape (`{field: [message]}`), as the spec has them. */
export const notFoundAsFieldErrors: ReadonlySet<string> = new Set(['GET /api/contacts-type/view']);

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH']);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema) => ({ 'application/json': { schema } });

const countHeader = (description: string, minimum: number) => ({ required: true, description, schema: { type: 'integer', minimum } });

const components = {
  // The per-account request limit (shared/rate-limits/account-limit.ts), on every authenticated answer.
  headers: {
    'X-RateLimit-Limit': countHeader('Requests the account may make per second.', 0),
    'X-RateLimit-Remaining': countHeader('Requests the account has left in the current second.', 0),
    'Retry-After': countHeader('Whole seconds until the limit lets the account in again.', 1),
    'Idempotent-Replayed': {
      description: 'On an authenticated POST sent with an Idempotency-Key: `true` when this is the kept answer of an earlier request with the key.',
      schema: { const: 'true' },
    },
  },
  securitySchemes: {
    PublicKey: { type: 'apiKey', in: 'header', name: 'PublicKey', description: 'The account\'s public key.' },
    SecretKey: { type: 'apiKey', in: 'header', name: 'SecretKey', description: 'The account\'s secret key.' },
  },
  schemas: {
    ...recordSchemas,
    Success: {
      type: 'object',
      required: ['status', 'message'],
      properties: { status: { const: 'success' }, message: { description: 'The operation\'s result: a record, a list or a text.' } },
    },
    SuccessInErrors: {
      type: 'object',
      description: 'The spec\'s success body of some deletes: the confirmation text in `errors`.',
      required: ['status', 'errors'],
      properties: { status: { const: 'success' }, errors: { type: 'string' } },
    },
    FieldErrors: {
      type: 'object',
      description: 'Laravel-style messages by field name.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    Failure: {
      type: 'object',
      required: ['status', 'errors'],
      properties: { status: { const: 'failed' }, errors: { oneOf: [{ type: 'string' }, ref('FieldErrors')] } },
    },
    ValidationFailure: {
      type: 'object',
      required: ['status', 'errors'],
      properties: { status: { const: 'failed' }, errors: ref('FieldErrors') },
    },
    MessageFailure: {
      type: 'object',
      required: ['status', 'errors'],
      properties: { status: { const: 'failed' }, errors: { type: 'string' } },
    },
  },
};

const failure = (description: string, schema: Schema = ref('MessageFailure')) => ({ description, content: json(schema) });

/** A page's refusals are pages too: a broken or expired link (400), a record gone (404), a link opened too often (429). */
function withPageFailures(responses: Record<string, Schema>): void {
  const page = { 'text/html': { schema: { type: 'string' } } };
  const pageFailures: Record<string, string> = {
    '400': 'A page saying the link is broken or expired (or, in JSON, a body that could not be read).',
    '404': 'A page saying the record the link names is gone.',
    '429': 'A page saying the link was opened too often; retry after the Retry-After seconds.',
  };
  for (const [status, description] of Object.entries(pageFailures)) {
    const existing = responses[status] as { content?: Schema } | undefined;
    responses[status] = { description, content: { ...page, ...(existing?.content ?? {}) } };
  }
}

/** `{file}` and the like: every path parameter, all required strings. */
function pathParameters(route: Route): Schema[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
}

/**
 * The fields a route reads. A route missing from request-schemas.ts still gets its operation (the
 * gateway and the stack serve the document whatever it holds); test/infra/openapi.test.ts names it.
 */
function fieldsOf(route: Route): RequestFields {
  return requestFields[routeKey(route)] ?? {};
}

/** Path parameters, then the query fields: each with its type, bounds and whether it is required. */
function parameters(route: Route): Schema[] {
  const query = objectSchema(fieldsOf(route).query ?? {});
  const required = new Set(query.required as string[] | undefined);
  const properties = query.properties as Record<string, Schema>;
  return [
    ...pathParameters(route),
    ...Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema })),
  ];
}

/**
 * The operation's own success answer (response-schemas.ts). A route missing there still gets the
 * generic envelope, so the document is always served; test/infra/openapi.test.ts names it.
 */
function successResponse(route: Route): Schema {
  const raw = rawResponses[routeKey(route)];
  if (raw) return { description: raw.description, content: { [raw.mediaType]: { schema: { type: raw.mediaType === 'application/json' ? 'object' : 'string' } } } };
  const schema = successSchemas[routeKey(route)];
  return { description: 'Success.', content: json(schema ?? { oneOf: [ref('Success'), ref('SuccessInErrors')] }) };
}

/** `family.operation`; an operation served on several routes adds the method and path to stay unique. */
function operationId(route: Route): string {
  const base = `${route.family}.${route.operation}`;
  const shared = routes.filter((other) => other.family === route.family && other.operation === route.operation).length > 1;
  return shared ? `${base}.${route.method.toLowerCase()}.${route.path.replace(/[^a-zA-Z0-9]+/g, '-')}` : base;
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** What else some routes' refusals mean, by route key and status, beside what every route's do. */
const routeRefusals: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'POST /api/contacts/resend-confirmation': {
    '422': `Or the contact cannot be sent its confirmation mail: errors is \`{"contact_id": ["${alreadyConfirmedMessage}"]}\`, or \`{"contact_id": ["${noOptInSenderMessage}"]}\` (double opt-in turned off for its type, or its opt-in sender deleted).`,
    '429': `Or the contact's confirmation mail was resent less than an hour ago: errors is \`${resendTooSoonMessage}\``,
  },
};

function withRouteRefusals(route: Route, responses: Record<string, Schema>): void {
  for (const [status, text] of Object.entries(routeRefusals[routeKey(route)] ?? {})) {
    const response = responses[status] as Schema;
    response.description = `${String(response.description)} ${text}`;
  }
}

/**
 * The request-limit headers on an authenticated operation's answers: all but a 401 (refused before the
 * account is known) and a 500 (which may come before it too); a 429 also says when to retry.
 */
/** Routes that mail at once (test mails), and so may find SES's sending paused. */
const mailingRoutes = new Set(['POST /api/single/send/test', 'POST /api/automations/schedule/test']);

function withRateLimitHeaders(responses: Record<string, Schema>): void {
  for (const [status, response] of Object.entries(responses)) {
    if (status === '401' || status === '500') continue;
    response.headers = {
      'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
      'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
      ...(status === '429' || status === '503' ? { 'Retry-After': headerRef('Retry-After') } : {}),
    };
  }
}

/** Idempotency-Key (shared/http/idempotency.ts), on every authenticated POST. */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first request with a key runs and its answer (under 500) is kept 24 hours; the same request again with the key gets that answer with `Idempotent-Replayed: true` and does nothing else. 1 to 255 printable ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

function withIdempotency(responses: Record<string, Schema>): void {
  (responses['409'] as Schema).description = `${String((responses['409'] as Schema).description)} Or a request with the same Idempotency-Key is still running: errors is \`A request with this Idempotency-Key is in progress.\``;
  (responses['422'] as Schema).description = `${String((responses['422'] as Schema).description)} Or the Idempotency-Key is malformed or was used with a different request (errors names \`Idempotency-Key\`).`;
  for (const status of ['200', '404', '409', '422']) {
    const response = responses[status] as Schema & { headers?: Record<string, unknown> };
    response.headers = { ...response.headers, 'Idempotent-Replayed': headerRef('Idempotent-Replayed') };
  }
}

function operation(route: Route): Schema {
  const account = (route.auth ?? 'account') === 'account';
  const notFound = route.notFound ?? 'Record Not Found';
  const responses: Record<string, Schema> = {
    '200': successResponse(route),
    '404': notFoundAsFieldErrors.has(routeKey(route))
      ? failure('The record is not in the account: errors names the field that names it.', ref('ValidationFailure'))
      : failure(`The record is not in the account: errors is \`${notFound}\`.`, {
          type: 'object',
          required: ['status', 'errors'],
          properties: { status: { const: 'failed' }, errors: { const: notFound } },
        }),
    '409': failure('The record\'s state refuses the change.'),
    '422': failure('A field failed validation.', ref('ValidationFailure')),
    '500': failure('Unexpected failure (logged): errors is `Internal server error.`'),
  };
  if (account) {
    responses['401'] = failure('Missing headers (errors by header name) or wrong PublicKey/SecretKey (errors is a text).', ref('Failure'));
    responses['429'] = failure('More requests than the account\'s per-second limit (X-RateLimit-* headers); retry after the Retry-After seconds.');
  }
  if (methodsWithBody.has(route.method)) responses['400'] = failure('The body could not be read in its declared encoding.');
  if (mailingRoutes.has(routeKey(route))) {
    responses['503'] = failure('SES has paused mail sending (the account\'s tenant, or the whole SES account): errors is `Mail sending is paused. Try again later.`; retry after the Retry-After seconds.');
  }
  withRouteRefusals(route, responses);
  if (!account && rawResponses[routeKey(route)]?.mediaType === 'text/html') withPageFailures(responses);
  if (account) withRateLimitHeaders(responses);
  const form = {
    ...objectSchema(fieldsOf(route).body ?? {}),
    description: 'Form encodings build arrays with `name[]` and objects with `name[key]`; numbers and 0/1 flags may be sent as text.',
  };
  const idempotent = account && route.method === 'POST';
  if (idempotent) withIdempotency(responses);
  const allParameters = [...parameters(route), ...(idempotent ? [idempotencyKeyParameter] : [])];
  return {
    operationId: operationId(route),
    tags: [route.family],
    summary: `${route.family}: ${route.operation}`,
    security: account ? [{ PublicKey: [], SecretKey: [] }] : [],
    ...(allParameters.length > 0 ? { parameters: allParameters } : {}),
    ...(methodsWithBody.has(route.method)
      ? {
          requestBody: {
            required: false,
            description: 'Any of the three encodings; each yields the same fields.',
            content: {
              'multipart/form-data': { schema: form },
              'application/x-www-form-urlencoded': { schema: form },
              'application/json': { schema: form },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

export interface OpenApiOptions {
  /** The server the document names, e.g. the deployed ApiBaseUrl or the local gateway. */
  serverUrl?: string;
  version?: string;
}

/** The whole document, one operation per route of the table. */
export function openApiDocument(options: OpenApiOptions = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const path = `${apiPrefix}${route.path}`;
    paths[path] ??= {};
    (paths[path] as Record<string, Schema>)[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Email campaign service API',
      version: options.version ?? '0.1.0',
      description:
        'Generated from the routing table (shared/routes.ts). Account routes authenticate with the PublicKey and ' +
        'SecretKey headers; public routes are pages and links sent in mail, guarded by signed tokens. Every JSON ' +
        'answer is an envelope: `{status: "success", message}` or `{status: "failed", errors}`. Times are UTC.',
    },
    servers: [{ url: options.serverUrl ?? 'http://localhost:3000' }],
    paths,
    components,
  };
}
