// An API Gateway v2 event reduced to what operations read: route, query, headers, fields and files.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { apiPrefix, findRoute, pathBelowApi, percentDecoded, routes, type HttpFamily, type RouteMatch } from '../routes';
import { parseBody, type UploadedFile } from './body';
import { BadRequestError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, UnauthorizedError } from './errors';
import { bodyTooLargeMessage, maxBodyBytes } from './request-size';

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

/** The route an event is for, by method and path; a path with a broken escape is a 400, not a miss. */
export function matchRoute(event: APIGatewayProxyEventV2, family?: HttpFamily): RouteMatch {
  const method = event.requestContext.http.method.toUpperCase();
  const path = pathBelowApi(event.rawPath) ?? '';
  if (percentDecoded(path) === undefined) throw new BadRequestError('The path is not valid percent-encoding.');
  const found = findRoute(method, path, family ? routes.filter((route) => route.family === family) : routes);
  // The catch-all sees a route's path under another prefix (`/x/api/contacts-type`) only because API
  // Gateway routed it nowhere: for the client that path does not exist.
  if (found.match && !family && !event.rawPath.startsWith(apiPrefix)) throw new NotFoundError('Not Found.');
  if (found.match) return found.match;
  const anywhere = family ? findRoute(method, path) : found;
  if (anywhere.allowed.length > 0) throw new MethodNotAllowedError(anywhere.allowed);
  throw new NotFoundError('Not Found.');
}

/**
 * Longer than any key this service issues, and short enough that a key never nears DynamoDB's key size
 * limit: a longer credential header is wrong credentials, refused before it is looked up.
 */
export const maxCredentialLength = 256;

const credentialHeaders = new Set(['publickey', 'secretkey']);

/** Refuse credential headers no account can have (401 `Invalid credentials.`, as any wrong key). */
export function refuseOverlongCredentials(headers: APIGatewayProxyEventV2['headers']): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (credentialHeaders.has(name.toLowerCase()) && value !== undefined && value.trim().length > maxCredentialLength) {
      throw new UnauthorizedError('Invalid credentials.');
    }
  }
}

function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers']): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers ?? {})) result[key.toLowerCase()] = value;
  return result;
}

/** The request an operation reads; `readBody: false` leaves the body unread (fields and files empty). */
export async function readRequest(event: APIGatewayProxyEventV2, match: RouteMatch, options: { readBody?: boolean } = {}): Promise<ApiRequest> {
  const headers = lowerCaseHeaders(event.headers);
  const body = event.body && options.readBody !== false ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  // A body this large reaches a function only with little beside it; refused whatever came along, so
  // what is accepted does not depend on the headers sent with it, and the local gateway agrees.
  if (body.length > maxBodyBytes) throw new PayloadTooLargeError(bodyTooLargeMessage);
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
