// An API Gateway v2 event reduced to what operations read: route, query, headers, fields and files.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { findRoute, pathBelowApi, routes, type HttpFamily, type RouteMatch } from '../routes';
import { parseBody, type UploadedFile } from './body';
import { MethodNotAllowedError, NotFoundError } from './errors';

export interface ApiRequest {
  method: string;
  /** Path below the API root, e.g. `contacts-type/view`. */
  path: string;
  query: Record<string, string>;
  pathParameters: Record<string, string>;
  headers: Record<string, string | undefined>;
  fields: Record<string, unknown>;
  files: UploadedFile[];
  requestId: string;
  sourceIp: string;
}

/** The route an event is for: by its route key when API Gateway matched one, else by method and path. */
export function matchRoute(event: APIGatewayProxyEventV2, family?: HttpFamily): RouteMatch {
  const method = event.requestContext.http.method.toUpperCase();
  const path = pathBelowApi(event.rawPath) ?? '';
  const found = findRoute(method, path, family ? routes.filter((route) => route.family === family) : routes);
  if (found.match) return found.match;
  const anywhere = family ? findRoute(method, path) : found;
  if (anywhere.allowed.length > 0) throw new MethodNotAllowedError(anywhere.allowed);
  throw new NotFoundError('Not Found.');
}

function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers']): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers ?? {})) result[key.toLowerCase()] = value;
  return result;
}

export async function readRequest(event: APIGatewayProxyEventV2, match: RouteMatch): Promise<ApiRequest> {
  const headers = lowerCaseHeaders(event.headers);
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  const { fields, files } = await parseBody(body, headers['content-type']);
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) query[key] = value;
  }
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: match.route.path,
    query,
    pathParameters: match.pathParameters,
    headers,
    fields,
    files,
    requestId: event.requestContext.requestId,
    sourceIp: event.requestContext.http.sourceIp,
  };
}
