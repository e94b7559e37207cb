// The local stand-in of the public links' REST API and its WAF web ACL (infra/stack/public-links-api.ts):
// below `/links/api/`, each request is first counted against its client address's limit (refused with
// WAF's custom 429 past it), then routed among the link routes and handed to its family's handler as
// the REST API's Lambda proxy payload 1.0 event.
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { clientLimitResponse, clientLimitWindowSeconds, notServedResponse, publicLinksPrefix, publicLinksStage } from '../public-links';
import { apiPrefix, findRoute, linkRoutes, type HttpFamily, type Route } from '../../shared/routes';

/**
 * WAF's rate rule aggregated by IP: the requests of each address over the trailing window, in
 * one-second buckets, refused while over the limit. As WAF counts every request of an address, refused
 * ones too, an address that keeps flooding stays refused; it is let in once its last window's count is
 * back at the limit. WAF itself estimates the rate and acts within seconds; this counts exactly.
 */
export class ClientLimit {
  private readonly counts = new Map<string, Map<number, number>>();
  private swept = 0;

  constructor(
    readonly limit: number,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** Count one request of `address`; true when the address is now over its limit. */
  take(address: string): boolean {
    const now = this.nowSeconds();
    const oldest = now - clientLimitWindowSeconds + 1;
    if (now - this.swept >= clientLimitWindowSeconds) this.sweep(oldest, now);
    const buckets = this.counts.get(address) ?? new Map<number, number>();
    this.counts.set(address, buckets);
    buckets.set(now, (buckets.get(now) ?? 0) + 1);
    let total = 0;
    for (const [second, count] of buckets) {
      if (second < oldest) buckets.delete(second);
      else total += count;
    }
    return total > this.limit;
  }

  /** Forget addresses silent for a whole window, so a stream of new addresses holds no memory. */
  private sweep(oldest: number, now: number): void {
    this.swept = now;
    for (const [address, buckets] of this.counts) if (Math.max(...buckets.keys()) < oldest) this.counts.delete(address);
  }
}

/**
 * The client address as WAF's IP aggregation takes it: the address the connection comes from, never
 * an X-Forwarded-For header (which any client may write).
 */
export function clientAddress(request: IncomingMessage): string {
  return (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

/** A REST proxy event's headers: as the client named them, the last of a repeated one single, all of them multi. */
function restHeaders(request: IncomingMessage, extra: Record<string, string>): Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'> {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const raw = request.rawHeaders;
  // API Gateway's own X-Forwarded-* replace the client's, whatever their case.
  const replaced = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (replaced.has(name.toLowerCase())) continue;
    headers[name] = raw[i + 1] as string;
    (multiValueHeaders[name] ??= []).push(raw[i + 1] as string);
  }
  for (const [name, value] of Object.entries(extra)) {
    headers[name] = value;
    multiValueHeaders[name] = [value];
  }
  return { headers, multiValueHeaders };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Query parameters as payload 1.0 has them: decoded, the last of a repeated name single, all of them multi. */
function restQuery(rawQueryString: string): Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> {
  const multi: Record<string, string[]> = {};
  for (const pair of rawQueryString.split('&').filter((part) => part !== '')) {
    const at = pair.indexOf('=');
    (multi[decoded(at === -1 ? pair : pair.slice(0, at))] ??= []).push(decoded(at === -1 ? '' : pair.slice(at + 1)));
  }
  if (Object.keys(multi).length === 0) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  return { queryStringParameters: Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values.at(-1) as string])), multiValueQueryStringParameters: multi };
}

/** The REST API's payload 1.0 event of a request routed to `route`; every body base64-encoded (all media types are binary). */
export function buildRestEvent(request: IncomingMessage, body: Buffer, route: Route, pathParameters: Record<string, string>, requestId: string, now: Date, requestTime: string): APIGatewayProxyEvent {
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const stagePath = queryAt === -1 ? url : url.slice(0, queryAt);
  const path = stagePath.slice(publicLinksPrefix.length - apiPrefix.length);
  const ip = clientAddress(request);
  const forwarded = request.headers['x-forwarded-for'];
  const port = String(request.socket.localPort ?? 80);
  const resource = `${apiPrefix}${route.path}`;
  const domainName = request.headers.host ?? `localhost:${port}`;
  return {
    resource,
    path,
    httpMethod: route.method,
    // API Gateway adds these, as it does on the HTTP API.
    ...restHeaders(request, { 'X-Forwarded-For': forwarded ? `${String(forwarded)}, ${ip}` : ip, 'X-Forwarded-Port': port, 'X-Forwarded-Proto': 'http' }),
    ...restQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local-links',
      authorizer: undefined,
      domainName,
      domainPrefix: domainName.split('.')[0]?.split(':')[0] ?? 'localhost',
      httpMethod: route.method,
      identity: {
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null, cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null, cognitoIdentityId: null, cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: ip,
        user: null, userAgent: request.headers['user-agent'] ?? null, userArn: null,
      },
      path: stagePath,
      protocol: `HTTP/${request.httpVersion}`,
      requestId,
      requestTime,
      requestTimeEpoch: now.getTime(),
      resourceId: 'local',
      resourcePath: resource,
      stage: publicLinksStage,
    },
    body: body.length > 0 ? body.toString('base64') : null,
    isBase64Encoded: body.length > 0,
  };
}

export type RestInvoke = (family: HttpFamily, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyStructuredResultV2>;

/** Answer one request below `/links/api/`: WAF's verdict first, then the route's handler, or the REST API's 404. */
export async function answerPublicLink(
  limit: ClientLimit,
  request: IncomingMessage,
  event: (route: Route, pathParameters: Record<string, string>) => APIGatewayProxyEvent,
  invoke: RestInvoke,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (limit.take(clientAddress(request))) return clientLimitResponse(limit.limit);
  const rawPath = (request.url ?? '/').split('?')[0] as string;
  const below = rawPath.slice(publicLinksPrefix.length).replace(/\/+$/, '');
  const match = findRoute(request.method ?? 'GET', below, linkRoutes).match;
  if (!match) return { ...notServedResponse, headers: { 'content-type': 'application/json' } };
  return invoke(match.route.family, event(match.route, match.pathParameters));
}
