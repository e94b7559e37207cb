// The OpenAPI document says what the per-account request limit does to every authenticated
// operation: each answer carries X-RateLimit-Limit and X-RateLimit-Remaining (all but a 401 or 500,
// which may come before the account is known), and each operation may answer 429 with Retry-After and the
// failure envelope. The header names and the 429 body are checked against what the code sends.
import Ajv2020 from 'ajv/dist/2020';
import { openApiDocument } from '../../infra/openapi/openapi-document';
import { RateLimited } from '../../shared/errors';
import { errorResult } from '../../shared/http/pipeline';
import { rateLimitHeaders } from '../../shared/rate-limits/account-limit';
import { apiPrefix, routeKey, routes, type Route } from '../../shared/routes';

interface Header {
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
  $ref?: string;
}

interface Response {
  headers?: Record<string, Header>;
  content?: Record<string, { schema: unknown }>;
}

const document = openApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: Record<string, unknown>; headers?: Record<string, Header> };
};

const responsesOf = (route: Route) => document.paths[`${apiPrefix}${route.path}`]?.[route.method.toLowerCase()]?.responses ?? {};
const accountRoutes = routes.filter((route) => (route.auth ?? 'account') === 'account');
const publicRoutes = routes.filter((route) => route.auth === 'public');

/** A response's headers by lower-case name, `$ref`s resolved. */
function headersOf(response: Response | undefined): Record<string, Header> {
  return Object.fromEntries(
    Object.entries(response?.headers ?? {}).map(([name, header]) => [
      name.toLowerCase(),
      header.$ref ? (document.components.headers?.[header.$ref.replace('#/components/headers/', '')] as Header) : header,
    ]),
  );
}

const limitHeaderNames = Object.keys(rateLimitHeaders({ limit: 50, remaining: 0 })).sort();

describe('OpenAPI: the per-account request limit', () => {
  it('names the headers the pipeline sends', () => {
    expect(limitHeaderNames).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining']);
  });

  it.each(accountRoutes.map((route) => [routeKey(route), route] as const))('%s: every answer but 401 and 500 carries the X-RateLimit headers', (_key, route) => {
    const responses = responsesOf(route);
    expect(Object.keys(responses).length).toBeGreaterThan(2);
    for (const [status, response] of Object.entries(responses)) {
      const headers = headersOf(response);
      const documented = Object.keys(headers).filter((name) => name.startsWith('x-ratelimit-')).sort();
      expect({ status, documented }).toEqual({ status, documented: status === '401' || status === '500' ? [] : limitHeaderNames });
      for (const name of documented) expect(headers[name]).toMatchObject({ required: true, schema: { type: 'integer', minimum: 0 } });
    }
  });

  it.each(accountRoutes.map((route) => [routeKey(route), route] as const))('%s: may answer 429 with Retry-After and the failure envelope', (_key, route) => {
    const tooMany = responsesOf(route)['429'];
    expect(headersOf(tooMany)['retry-after']).toMatchObject({ required: true, schema: { type: 'integer', minimum: 1 } });
    // What the pipeline answers when the account is past its limit validates against it.
    const answer = errorResult(new RateLimited('Too many requests: at most 50 per second per account. Try again in 1 second.', 1), route, 'req');
    expect(answer.statusCode).toBe(429);
    expect(answer.headers?.['retry-after']).toBe('1');
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
    const schema = JSON.parse(JSON.stringify(tooMany?.content?.['application/json']?.schema).replace(/"#\/components/g, '"openapi#/components')) as object;
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(answer.body as string)) ? [] : validate.errors).toEqual([]);
  });

  it.each(publicRoutes.map((route) => [routeKey(route), route] as const))('%s: a public route has no account limit headers', (_key, route) => {
    for (const response of Object.values(responsesOf(route))) expect(Object.keys(headersOf(response)).filter((name) => name.startsWith('x-ratelimit-'))).toEqual([]);
  });
});
