// The OpenAPI document covers every route of the routing table, is valid OpenAPI 3.1 in its schemas,
// and the pipeline's real answers validate against the responses it documents.
import Ajv2020 from 'ajv/dist/2020';
import { startGateway } from '../../infra/local/gateway';
import { openApiDocument, rawResponses } from '../../infra/openapi/openapi-document';
import { RecordNotFound } from '../../shared/table/errors';
import { ConflictError, UnauthorizedError, ValidationError } from '../../shared/http/errors';
import { errorResult } from '../../shared/http/pipeline';
import { ok, okInErrors, toResult } from '../../shared/http/reply';
import { apiPrefix, routeKey, routes, type Route } from '../../shared/routes';

interface Operation {
  operationId: string;
  security: unknown[];
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
  requestBody?: { content: Record<string, unknown> };
}

const document = openApiDocument() as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

const operationOf = (route: Route): Operation | undefined => document.paths[`${apiPrefix}${route.path}`]?.[route.method.toLowerCase()];

/** Validates a body against a response schema, resolving `#/components/schemas/...`. */
function validator() {
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  return (schema: unknown, body: unknown) => {
    const resolved = JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"openapi#/components')) as object;
    const validate = ajv.compile(resolved);
    return validate(body) ? [] : validate.errors;
  };
}

describe('OpenAPI document', () => {
  const check = validator();
  const silence = process.env.LOG_LEVEL;
  beforeAll(() => {
    process.env.LOG_LEVEL = 'silent';
  });
  afterAll(() => {
    process.env.LOG_LEVEL = silence;
  });

  test('is OpenAPI 3.1 with one operation per route, and nothing else', () => {
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map(routeKey).sort());
  });

  test('gives every operation a unique id', () => {
    const ids = routes.map((route) => operationOf(route)?.operationId);
    expect(new Set(ids).size).toBe(routes.length);
  });

  test.each(routes.map((route) => [routeKey(route), route] as const))('%s: credentials, encodings and not-found text as the table says', (_key, route) => {
    const operation = operationOf(route) as Operation;
    const account = (route.auth ?? 'account') === 'account';
    expect(operation.security).toEqual(account ? [{ PublicKey: [], SecretKey: [] }] : []);
    expect(Boolean(operation.responses['401'])).toBe(account);
    if (route.method === 'POST') {
      expect(Object.keys(operation.requestBody?.content ?? {}).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    }
    const notFound = errorResult(new RecordNotFound('record', 1), route, 'req');
    expect(check(operation.responses['404']?.content['application/json']?.schema, JSON.parse(notFound.body as string))).toEqual([]);
  });

  test('names only real routes in its map of non-JSON responses', () => {
    const keys = new Set(routes.map(routeKey));
    for (const key of Object.keys(rawResponses)) expect(keys).toContain(key);
  });

  test('the pipeline\'s real answers validate against the documented responses', () => {
    const route = routes.find((candidate) => routeKey(candidate) === 'POST /api/contacts-type/add') as Route;
    const operation = operationOf(route) as Operation;
    const schemaOf = (status: string) => operation.responses[status]?.content['application/json']?.schema;
    const body = (result: { body?: string }) => JSON.parse(result.body as string) as unknown;

    expect(check(schemaOf('200'), body(toResult(ok({ id: 1, name: 'Customers' }))))).toEqual([]);
    expect(check(schemaOf('200'), body(toResult(okInErrors('Contact type deleted.'))))).toEqual([]);
    expect(check(schemaOf('422'), body(errorResult(ValidationError.of('name', 'The name field is required.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('401'), body(errorResult(new UnauthorizedError('Unauthenticated.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('409'), body(errorResult(new ConflictError('Not in this state.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('500'), body(errorResult(new Error('boom'), route, 'req')))).toEqual([]);
    // And a wrong body does not: the schemas can fail.
    expect(check(schemaOf('200'), { status: 'failed', errors: 'x' })).not.toEqual([]);
    expect(check(schemaOf('404'), { status: 'failed', errors: 'Something else' })).not.toEqual([]);
  });

  test('the local gateway serves it at /api/openapi.json, naming itself as the server', async () => {
    const gateway = await startGateway({ port: 0, quiet: true });
    try {
      const response = await fetch(`http://127.0.0.1:${gateway.port}/api/openapi.json`);
      expect(response.status).toBe(200);
      const served = (await response.json()) as { servers: { url: string }[]; paths: unknown };
      expect(served.servers).toEqual([{ url: `http://127.0.0.1:${gateway.port}` }]);
      expect(served.paths).toEqual(document.paths);
    } finally {
      await gateway.close();
    }
  });
});
