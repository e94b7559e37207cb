// Lambda for the API docs: the OpenAPI document (generated from the routing table and the operations'
// field rules at build time) and the Swagger UI viewer on it, public like the pages. Like the fallback
// it answers without the account pipeline: it reads no table, signs nothing and calls no AWS service.
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { errorResult } from '../../shared/http/pipeline';
import { matchRoute } from '../../shared/http/request';
import { apiPrefix, type Route } from '../../shared/routes';
import { RecordNotFound } from '../../shared/table/errors';
import { servedFile, type ServedFile } from './files';
import { viewerPage } from './viewer-page';

// Nothing here is secret; the files change only with a deploy, so caches may keep them an hour.
const fileHeaders = { 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=3600' };

function accepts(event: APIGatewayProxyEventV2, encoding: string): boolean {
  return (event.headers?.['accept-encoding'] ?? '').split(',').some((part) => part.trim().split(';')[0] === encoding);
}

function fileResult(event: APIGatewayProxyEventV2, file: ServedFile): APIGatewayProxyStructuredResultV2 {
  const gzip = accepts(event, 'gzip');
  return {
    statusCode: 200,
    headers: { ...fileHeaders, 'content-type': file.mediaType, vary: 'accept-encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body: (gzip ? file.gzipped : file.content).toString('base64'),
    isBase64Encoded: true,
  };
}

/** The API's origin as the client reached it: the document names it as its server, so "Try it out" calls this API. */
function origin(event: APIGatewayProxyEventV2): string {
  const proto = (event.headers?.['x-forwarded-proto'] ?? 'https').split(',')[0]?.trim() || 'https';
  return `${proto}://${event.headers?.host ?? event.requestContext.domainName}`;
}

/** The path up to the API root as the client used it (a custom domain may map the API below a base path). */
function apiRoot(event: APIGatewayProxyEventV2): string {
  const at = event.rawPath.indexOf(apiPrefix);
  return at === -1 ? apiPrefix : event.rawPath.slice(0, at + apiPrefix.length);
}

function documentResult(event: APIGatewayProxyEventV2): APIGatewayProxyStructuredResultV2 {
  const file = servedFile('openapi.json');
  if (!file) throw new Error('openapi.json is missing from the API docs files');
  const document = { ...(JSON.parse(file.content.toString('utf8')) as Record<string, unknown>), servers: [{ url: origin(event) }] };
  const body = JSON.stringify(document);
  const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', vary: 'accept-encoding' };
  // About 300 KB of JSON, a tenth of that gzipped.
  if (!accepts(event, 'gzip')) return { statusCode: 200, headers, body };
  return { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(body).toString('base64'), isBase64Encoded: true };
}

function answer(event: APIGatewayProxyEventV2, route: Route, pathParameters: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  switch (route.operation) {
    case 'document':
      return documentResult(event);
    case 'viewer':
      return viewerPage(apiRoot(event));
    case 'viewerFile': {
      // The document has its own route (with this API as its server); only the viewer's files are here.
      const name = pathParameters.file ?? '';
      const file = name === 'openapi.json' ? undefined : servedFile(name);
      if (!file) throw new RecordNotFound('API docs file', name);
      return fileResult(event, file);
    }
    default:
      throw new Error(`api-docs has no operation ${route.operation}`);
  }
}

export async function handler(event: APIGatewayProxyEventV2, context?: Context): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = context?.awsRequestId ?? event.requestContext.requestId;
  let route: Route | undefined;
  try {
    const match = matchRoute(event, 'api-docs');
    route = match.route;
    return answer(event, route, match.pathParameters);
  } catch (error) {
    return errorResult(error, route, requestId);
  }
}
