// Test factories: API Gateway v2 events as API Gateway builds them, and request bodies as clients send them.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { findRoute, pathBelowApi, routeKey } from '../../shared/routes';

export interface Body {
  contentType: string;
  body: Buffer;
}

/** multipart/form-data as browsers and the spec's clients send it; files as `{filename, content}`. */
export function multipart(fields: Record<string, string | number | { filename: string; content: string | Buffer; contentType?: string }>): Body {
  const boundary = `----test${randomUUID().replace(/-/g, '')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'object') {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.contentType ?? 'text/csv'}\r\n\r\n`,
        ),
        Buffer.isBuffer(value.content) ? value.content : Buffer.from(value.content),
        Buffer.from('\r\n'),
      );
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

/** application/x-www-form-urlencoded; arrays become indexed keys (`strIds[0]`), as the spec's bulk deletes send them. */
export function urlencoded(fields: Record<string, string | number | (string | number)[]>): Body {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) value.forEach((item, i) => params.append(`${name}[${i}]`, String(item)));
    else params.append(name, String(value));
  }
  return { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(params.toString()) };
}

export function json(value: unknown): Body {
  return { contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
}

export interface Keys {
  public_key: string;
  secret_key: string;
}

export function authHeaders(keys: Keys): Record<string, string> {
  return { publickey: keys.public_key, secretkey: keys.secret_key };
}

/** An event for `METHOD /api/<path>?query`, with the route key API Gateway would set. */
export function apiEvent(options: {
  method: string;
  path: string;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  body?: Body;
}): APIGatewayProxyEventV2 {
  const rawPath = `/api/${options.path}`;
  const query = Object.fromEntries(Object.entries(options.query ?? {}).map(([k, v]) => [k, String(v)]));
  const found = findRoute(options.method, pathBelowApi(rawPath) ?? '');
  const binary = options.body?.contentType.startsWith('multipart/');
  const headers: Record<string, string> = { host: 'localhost', ...options.headers };
  if (options.body) headers['content-type'] = options.body.contentType;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: found.match ? routeKey(found.match.route) : '$default',
    rawPath,
    rawQueryString: new URLSearchParams(query).toString(),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: found.match && Object.keys(found.match.pathParameters).length ? found.match.pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: options.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: randomUUID(),
      routeKey: found.match ? routeKey(found.match.route) : '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: options.body ? options.body.body.toString(binary ? 'base64' : 'utf8') : undefined,
    isBase64Encoded: Boolean(binary),
  };
}

/** The status and parsed JSON body of a handler result. */
export function parsed(result: APIGatewayProxyStructuredResultV2): { status: number; body: Record<string, unknown> } {
  return { status: result.statusCode ?? 200, body: JSON.parse(result.body ?? 'null') };
}

/** The spec's `created_at`/`updated_at` form: ISO 8601 UTC with microseconds. */
export const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** `call(keys, method, path, options)` for one family's handler: the status and JSON body it answers. */
export function handlerCaller(handler: Handler) {
  return async (keys: Keys | undefined, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) =>
    parsed(await handler(apiEvent({ method, path, ...options, headers: { ...(keys ? authHeaders(keys) : {}), ...options.headers } })));
}
