// The public links' REST API sends Lambda proxy payload 1.0; the pipeline reads payload 2.0. These turn
// a 1.0 event into the 2.0 event the HTTP API would have sent for the same request, and the answer back.
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** Payload 1.0 names its method at the top; 2.0 only in `requestContext.http`. */
export function isRestEvent(event: HttpEvent): event is APIGatewayProxyEvent {
  return 'httpMethod' in event;
}

/** Each name's values, repeated names joined with ',' as payload 2.0 joins them. */
function joined(single: Record<string, string | undefined> | null, multi: Record<string, string[] | undefined> | null): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of Object.entries(single ?? {})) if (value !== undefined) values.set(name, [value]);
  for (const [name, list] of Object.entries(multi ?? {})) if (list !== undefined) values.set(name, list);
  return values;
}

/** The 2.0 event of a 1.0 one: lower-case headers, cookies in their own list, the path without the stage. */
export function fromRestEvent(event: APIGatewayProxyEvent): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, values] of joined(event.headers, event.multiValueHeaders)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') cookies.push(...values.flatMap((value) => value.split(';')).map((cookie) => cookie.trim()).filter((cookie) => cookie !== ''));
    else headers[lower] = lower in headers ? `${headers[lower]},${values.join(',')}` : values.join(',');
  }
  const query = joined(event.queryStringParameters, event.multiValueQueryStringParameters);
  const rawQueryString = [...query].flatMap(([name, values]) => values.map((value) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)).join('&');
  const { requestContext: context } = event;
  const routeKey = `${event.httpMethod} ${event.resource}`;
  return {
    version: '2.0',
    routeKey,
    // `path` is below the stage (`/api/public/open`); `requestContext.path` would carry the stage too.
    rawPath: event.path,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(query.size > 0 ? { queryStringParameters: Object.fromEntries([...query].map(([name, values]) => [name, values.join(',')])) } : {}),
    ...(event.pathParameters ? { pathParameters: event.pathParameters } : {}),
    ...(event.stageVariables ? { stageVariables: event.stageVariables } : {}),
    requestContext: {
      accountId: context.accountId,
      apiId: context.apiId,
      domainName: context.domainName ?? '',
      domainPrefix: context.domainPrefix ?? '',
      http: {
        method: event.httpMethod,
        path: event.path,
        protocol: context.protocol,
        sourceIp: context.identity.sourceIp,
        userAgent: context.identity.userAgent ?? '',
      },
      requestId: context.requestId,
      routeKey,
      stage: context.stage,
      time: context.requestTime ?? '',
      timeEpoch: context.requestTimeEpoch,
    },
    ...(event.body !== null ? { body: event.body } : {}),
    isBase64Encoded: event.isBase64Encoded,
  };
}

/** The 1.0 answer of a 2.0 result: 1.0 has no `cookies`, so they go out as `set-cookie` headers. */
export function toRestResult(result: APIGatewayProxyStructuredResultV2): APIGatewayProxyResult {
  return {
    statusCode: result.statusCode ?? 200,
    headers: { ...result.headers },
    ...(result.cookies?.length ? { multiValueHeaders: { 'set-cookie': result.cookies } } : {}),
    body: result.body ?? '',
    isBase64Encoded: result.isBase64Encoded ?? false,
  };
}
