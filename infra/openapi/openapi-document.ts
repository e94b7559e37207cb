// The OpenAPI 3.1 document of the API, generated from the routing table (shared/routes.ts): every
// route with its authentication, request encodings, path parameters and the envelopes the pipeline
// answers with. What the table cannot say (responses that are not JSON) comes from a map keyed by
// route key below, checked against the table by test/infra/openapi.test.ts.
import { apiPrefix, routeKey, routes, type Route } from '../../shared/routes';

type Schema = Record<string, unknown>;

/** Responses outside the JSON envelope, by route key: their media type and what they are. */
export const rawResponses: Readonly<Record<string, { mediaType: string; description: string }>> = {
  'GET /api/contacts/csv-sample/download': { mediaType: 'text/csv', description: 'A sample CSV file for contact uploads.' },
  'GET /api/public/open': { mediaType: 'image/gif', description: 'The 1x1 open-tracking pixel; the open is counted.' },
  'GET /api/public/preferences': { mediaType: 'text/html', description: 'The recipient\'s unsubscribe preferences page.' },
  'POST /api/public/preferences': { mediaType: 'text/html', description: 'The page confirming the changed preferences.' },
  'GET /api/public/unsubscribe': { mediaType: 'text/html', description: 'The unsubscribe preferences page (the List-Unsubscribe link).' },
  'POST /api/public/unsubscribe': { mediaType: 'text/plain', description: 'RFC 8058 one-click unsubscribe: the recipient is unsubscribed.' },
  'GET /api/assets/previews/{file}': { mediaType: 'image/svg+xml', description: 'A design template\'s preview image.' },
  'GET /api/public/senders/confirm': { mediaType: 'text/html', description: 'The page with the button that confirms a sender\'s address; opening it changes nothing.' },
  'POST /api/public/senders/confirm': { mediaType: 'text/html', description: 'The button\'s form: the sender\'s address is confirmed.' },
  'GET /api/automations/schedule/design/{token}': { mediaType: 'text/html', description: 'An automation step\'s design, rendered.' },
  'GET /api/automations/schedule/image/{token}': { mediaType: 'text/html', description: 'An automation step\'s preview.' },
};

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH']);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema) => ({ 'application/json': { schema } });

const components = {
  securitySchemes: {
    PublicKey: { type: 'apiKey', in: 'header', name: 'PublicKey', description: 'The account\'s public key.' },
    SecretKey: { type: 'apiKey', in: 'header', name: 'SecretKey', description: 'The account\'s secret key.' },
  },
  schemas: {
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

/** `{file}` and the like: every path parameter, all required strings. */
function pathParameters(route: Route): Schema[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
}

function successResponse(route: Route): Schema {
  const raw = rawResponses[routeKey(route)];
  if (raw) return { description: raw.description, content: { [raw.mediaType]: { schema: { type: 'string' } } } };
  return { description: 'Success.', content: json({ oneOf: [ref('Success'), ref('SuccessInErrors')] }) };
}

/** `family.operation`; an operation served on several routes adds the method and path to stay unique. */
function operationId(route: Route): string {
  const base = `${route.family}.${route.operation}`;
  const shared = routes.filter((other) => other.family === route.family && other.operation === route.operation).length > 1;
  return shared ? `${base}.${route.method.toLowerCase()}.${route.path.replace(/[^a-zA-Z0-9]+/g, '-')}` : base;
}

function operation(route: Route): Schema {
  const account = (route.auth ?? 'account') === 'account';
  const notFound = route.notFound ?? 'Record Not Found';
  const responses: Record<string, Schema> = {
    '200': successResponse(route),
    '404': failure(`The record is not in the account: errors is \`${notFound}\`.`, {
      type: 'object',
      required: ['status', 'errors'],
      properties: { status: { const: 'failed' }, errors: { const: notFound } },
    }),
    '409': failure('The record\'s state refuses the change.'),
    '422': failure('A field failed validation.', ref('ValidationFailure')),
    '500': failure('Unexpected failure (logged): errors is `Internal server error.`'),
  };
  if (account) responses['401'] = failure('Missing or wrong PublicKey/SecretKey headers.');
  if (methodsWithBody.has(route.method)) responses['400'] = failure('The body could not be read in its declared encoding.');
  const form = { type: 'object', additionalProperties: true, description: 'Fields as the operation documents them; `name[]` and `name[key]` build arrays and objects.' };
  return {
    operationId: operationId(route),
    tags: [route.family],
    summary: `${route.family}: ${route.operation}`,
    security: account ? [{ PublicKey: [], SecretKey: [] }] : [],
    ...(pathParameters(route).length > 0 ? { parameters: pathParameters(route) } : {}),
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
