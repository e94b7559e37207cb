// The OpenAPI document covers every route of the routing table, describes what each route reads
// (from the operations' field rules) and what each JSON route answers on success (response-schemas.ts),
// is valid OpenAPI 3.1 in its schemas, and the pipeline's real
// answers validate against the responses it documents. docs/api-reference.md is its current rendering.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { startGateway } from '../../infra/local/gateway';
import { apiReference, apiReferenceFile } from '../../infra/openapi/api-reference';
import { notFoundAsFieldErrors, openApiDocument, rawResponses } from '../../infra/openapi/openapi-document';
import { requestFields } from '../../infra/openapi/request-schemas';
import { recordSchemas } from '../../infra/openapi/record-schemas';
import { successSchemas } from '../../infra/openapi/response-schemas';
import { RecordNotFound } from '../../shared/table/errors';
import { Conflict, ValidationError } from '../../shared/errors';
import { UnauthorizedError } from '../../shared/http/errors';
import { errorResult } from '../../shared/http/pipeline';
import { ok, okInErrors, toResult } from '../../shared/http/reply';
import { apiPrefix, routeKey, routes, type Route } from '../../shared/routes';

interface Operation {
  operationId: string;
  security: unknown[];
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>>; required?: string[] } }> };
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
    // The few routes that answer an unknown record in the validation shape say so (checked against the
    // real handler by test/integration/openapi-conformance.test.ts); the rest answer the table's text.
    const notFound = notFoundAsFieldErrors.has(routeKey(route))
      ? errorResult(ValidationError.of('id', 'The selected id is invalid.'), route, 'req')
      : errorResult(new RecordNotFound('record', 1), route, 'req');
    expect(check(operation.responses['404']?.content['application/json']?.schema, JSON.parse(notFound.body as string))).toEqual([]);
  });

  test('describes what every route of the table reads, and no route that is not in it', () => {
    // A new route fails here until infra/openapi/request-schemas.ts says which fields it takes.
    expect(routes.map(routeKey).filter((key) => !(key in requestFields))).toEqual([]);
    expect(Object.keys(requestFields).filter((key) => !routes.some((route) => routeKey(route) === key))).toEqual([]);
  });

  test.each(routes.map((route) => [routeKey(route), route] as const))('%s: every field it reads has a JSON Schema type', (_key, route) => {
    const operation = operationOf(route) as Operation;
    const fields = [
      ...(operation.parameters ?? []).map((parameter) => [parameter.name, parameter.schema] as const),
      ...Object.entries(operation.requestBody?.content['application/json']?.schema.properties ?? {}),
    ];
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of fields) {
      // A field built with `new Field(...)` or a `check()` rule must say what it is with `documented()`.
      expect({ name, typed: 'type' in schema || 'enum' in schema || 'const' in schema }).toEqual({ name, typed: true });
      expect(() => ajv.compile(schema)).not.toThrow();
    }
  });

  test('takes each field\'s type, bounds, allowed values and required flag from the operations\' rules', () => {
    const body = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return document.paths[path]?.[method.toLowerCase()]?.requestBody?.content['application/json']?.schema;
    };
    expect(body('POST /api/contacts-type/add')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 255 },
        double_opt_in: { type: 'integer', enum: [0, 1] },
        opt_in_sender_id: { type: 'integer', minimum: 1 },
      },
      required: ['name'],
      description: expect.any(String),
    });
    expect(body('POST /api/custom-fields/save')?.properties.field_type).toEqual({ type: 'string', enum: ['text', 'number', 'datetime-local'] });
    expect(body('POST /api/contacts/bulk-delete')?.properties.strIds).toEqual({ type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1, maxItems: 1000 });
    expect(body('POST /api/unsubscribes-groups/save')?.properties.is_display).toMatchObject({ enum: [0, 1, true, false] });
    expect(body('POST /api/notification-recipient/save')?.properties.email_address).toEqual({ type: 'string', format: 'email', maxLength: 254 });
    expect(body('POST /api/notification-recipient/save')?.required).toEqual(['email_address', 'email_owner']);
    const view = operationOf(routes.find((route) => routeKey(route) === 'GET /api/contacts-type/view') as Route) as Operation;
    expect(view.parameters).toEqual([{ name: 'contact_type_id', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }]);
    const list = operationOf(routes.find((route) => routeKey(route) === 'GET /api/contacts/list') as Route) as Operation;
    expect(list.parameters?.map((parameter) => [parameter.name, parameter.required])).toEqual([
      ['limit', false],
      ['cursor', false],
    ]);
  });

  test('docs/api-reference.md is the reference the document renders to (run `npm run openapi` after changing routes or rules)', () => {
    expect(readFileSync(apiReferenceFile, 'utf8')).toBe(apiReference());
  });

  test('the README and the docs link nothing outside the repository', () => {
    const root = join(__dirname, '..', '..');
    const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];
    const outside = files.flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/\]\(\s*<?((?:[a-z][a-z0-9+.-]*:|\/\/)[^)\s>]*)|<((?:https?|ftp):[^>\s]+)>|^\[[^\]]+\]:\s*((?:[a-z]+:|\/\/)\S+)/gim)].map(
        (match) => `${file}: ${match[1] ?? match[2] ?? match[3]}`,
      ),
    );
    expect(outside).toEqual([]);
  });

  const jsonRoutes = routes.filter((route) => (rawResponses[routeKey(route)]?.mediaType ?? 'application/json') === 'application/json' && routeKey(route) !== 'GET /api/openapi.json');
  const successOf = (route: Route) => operationOf(route)?.responses['200']?.content['application/json']?.schema;

  test('documents the success answer of every JSON route, and of no other route', () => {
    // A new route fails here until infra/openapi/response-schemas.ts says what it answers.
    expect(jsonRoutes.map(routeKey).filter((key) => !(key in successSchemas))).toEqual([]);
    expect(Object.keys(successSchemas).filter((key) => !jsonRoutes.some((route) => routeKey(route) === key))).toEqual([]);
  });

  test.each(jsonRoutes.map((route) => [routeKey(route), route] as const))('%s: its success schema compiles, and refuses a failure and a bare message', (key, route) => {
    const schema = successOf(route);
    expect({ key, schema: schema === successSchemas[key] }).toEqual({ key, schema: true });
    expect(check(schema, { status: 'failed', errors: 'Record Not Found' })).not.toEqual([]);
    expect(check(schema, { status: 'success', message: 12345 })).not.toEqual([]);
  });

  test('documents next_cursor on exactly the lists that read a cursor', () => {
    const pagedByQuery = jsonRoutes.filter((route) => (operationOf(route)?.parameters ?? []).some((parameter) => parameter.name === 'cursor')).map(routeKey);
    const pagedByAnswer = jsonRoutes.filter((route) => JSON.stringify(successOf(route)).includes('"next_cursor"')).map(routeKey);
    expect(pagedByAnswer).toEqual(pagedByQuery);
  });

  test('a record schema requires its fields with their types, and lets a record carry more', () => {
    const view = successOf(routes.find((route) => routeKey(route) === 'GET /api/contacts-type/view') as Route);
    const contactType = { id: 1, user_id: 2, name: 'Customers', double_opt_in: 0, opt_in_sender_id: null, deleted_at: null, created_at: '2026-01-02T03:04:05.000000Z', updated_at: '2026-01-02T03:04:05.000000Z' };
    const answer = (record: object) => ({ status: 'success', message: { contactType: record } });
    expect(check(view, answer(contactType))).toEqual([]);
    expect(check(view, answer({ ...contactType, colour: 'blue' }))).toEqual([]);
    const { name: _name, ...withoutName } = contactType;
    expect(check(view, answer(withoutName))).not.toEqual([]);
    expect(check(view, answer({ ...contactType, id: '1' }))).not.toEqual([]);
    expect(check(view, answer({ ...contactType, created_at: '2026-01-02 03:04:05' }))).not.toEqual([]);
    const deleteSchema = successOf(routes.find((route) => routeKey(route) === 'DELETE /api/contacts-type/delete') as Route);
    expect(check(deleteSchema, JSON.parse(toResult(okInErrors('Deleted Successfully')).body as string))).toEqual([]);
    expect(check(deleteSchema, JSON.parse(toResult(ok('Deleted Successfully')).body as string))).not.toEqual([]);
  });

  test('documents every status a single send takes, and a held or self-paused automation\'s details', () => {
    expect((recordSchemas.SingleSend as { properties: { status: { enum: number[] } } }).properties.status.enum).toEqual([0, 1, 2, 3, 4]);
    const details = successOf(routes.find((route) => routeKey(route) === 'GET /api/automations/details') as Route);
    const automationSchema = (details as unknown as { properties: { message: { properties: { automation: { allOf: [unknown, { properties: Record<string, unknown> }] } } } } })
      .properties.message.properties.automation.allOf[1].properties;
    expect(Object.keys(automationSchema).sort()).toEqual(['held', 'paused_reason']);
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

    expect(check(schemaOf('200'), body(toResult(ok('Added Successfully'))))).toEqual([]);
    expect(check(schemaOf('422'), body(errorResult(ValidationError.of('name', 'The name field is required.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('401'), body(errorResult(new UnauthorizedError('Unauthenticated.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('409'), body(errorResult(new Conflict('Not in this state.'), route, 'req')))).toEqual([]);
    expect(check(schemaOf('500'), body(errorResult(new Error('boom'), route, 'req')))).toEqual([]);
    // And a wrong body does not: the schemas can fail.
    expect(check(schemaOf('200'), { status: 'failed', errors: 'x' })).not.toEqual([]);
    expect(check(schemaOf('200'), body(toResult(ok({ id: 1, name: 'Customers' }))))).not.toEqual([]);
    expect(check(schemaOf('404'), { status: 'failed', errors: 'Something else' })).not.toEqual([]);
  });

  test('the local gateway serves it at /api/openapi.json through the api-docs route, naming itself as the server', async () => {
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
