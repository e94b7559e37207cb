// The local API Gateway: a Node HTTP server that turns each request into the HTTP API payload 2.0
// event API Gateway would send, calls the route's family handler in process, and writes its result.
// Below `/links/api/` it stands in for the public links' REST API and its WAF limit (public-links-gateway.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { defaultClientLimit, publicLinksPrefix } from '../public-links';
import { apiPrefix, findRoute, pathBelowApi, routeKey, type HttpFamily, type Route, type RouteMatch } from '../../shared/routes';
import { bodyTooLargeMessage, lambdaEventBytes, maxBodyBytes } from '../../shared/http/request-size';
import { writeApiDocsFiles } from '../openapi/api-docs-files';
import { apiDocsDirEnvName } from '../../functions/api-docs/files';
import { FunctionMissingError, loadFunctionHandler } from './function-modules';
import { lambdaContext } from './lambda-context';
import { answerPublicLink, buildRestEvent, ClientLimit } from './public-links-gateway';

/**
 * The largest body that reaches a function deployed: API Gateway takes 10 MB, but Lambda only 6 MB
 * of event with the body base64-encoded in it (shared/http/request-size.ts). Past it, or with an
 * event past Lambda's 6 MB (a text body escaped in the event), this gateway answers 413 in the
 * service's envelope where API Gateway would answer with its own error.
 */
export { maxBodyBytes };

export type HttpHandler = (event: APIGatewayProxyEventV2, context?: Context) => Promise<unknown>;

export interface GatewayOptions {
  port: number;
  host?: string;
  quiet?: boolean;
  log?: (line: string) => void;
  /** Handlers by family (tests); the others load `functions/<family>/handler.ts`. */
  handlers?: Partial<Record<HttpFamily, HttpHandler>>;
  /** Requests per minute one client address may make below `/links/api/` (the WAF rate rule's limit). */
  clientLimit?: number;
}

export interface Gateway {
  port: number;
  close(): Promise<void>;
}

const failure = (statusCode: number, errors: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ status: 'failed', errors }),
});

// Measured on API Gateway HTTP APIs: only these arrive as text; everything else, form-urlencoded and
// a missing Content-Type included, arrives base64-encoded.
const textTypes = /^(text\/[^;]*|application\/(json|xml|javascript))\s*(;|$)/i;

export function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && textTypes.test(contentType.trim());
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `requestContext.time` as API Gateway writes it: `12/Mar/2020:19:03:58 +0000`. */
export function requestTime(at: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${pad(at.getUTCDate())}/${months[at.getUTCMonth()]}/${at.getUTCFullYear()}:` +
    `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`
  );
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Query parameters as payload 2.0 has them: percent-decoded, repeated names joined with ','. */
export function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decodeComponent(at === -1 ? pair : pair.slice(0, at));
    const value = decodeComponent(at === -1 ? '' : pair.slice(at + 1));
    parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

/** Headers with lowercased names, repeated ones joined with ','; cookies go to their own field. */
function eventHeaders(request: IncomingMessage): { headers: Record<string, string>; cookies?: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((cookie) => cookie.trim()).filter((cookie) => cookie !== ''));
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return cookies.length > 0 ? { headers, cookies } : { headers };
}

function sourceIp(request: IncomingMessage): string {
  return (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

export function buildEvent(
  request: IncomingMessage,
  body: Buffer,
  match: RouteMatch | undefined,
  requestId: string,
  now: Date,
): APIGatewayProxyEventV2 {
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const method = (request.method ?? 'GET').toUpperCase();
  const { headers, cookies } = eventHeaders(request);
  const ip = sourceIp(request);
  const localPort = request.socket.localPort ?? 80;
  // API Gateway adds these; handlers that read the client address find it where they would on AWS.
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${ip}` : ip;
  headers['x-forwarded-port'] = String(localPort);
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] = `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  const domainName = headers.host ?? `localhost:${localPort}`;
  const key = match ? routeKey(match.route) : '$default';
  const hasBody = body.length > 0;
  const asText = isTextContentType(headers['content-type']);
  const query = queryParameters(rawQueryString);
  const pathParameters = match && Object.keys(match.pathParameters).length > 0 ? match.pathParameters : undefined;
  return {
    version: '2.0',
    routeKey: key,
    rawPath,
    rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0]?.split(':')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: ip,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(pathParameters ? { pathParameters } : {}),
    ...(hasBody ? { body: asText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !asText,
  };
}

/**
 * The response a handler's result stands for. Payload 2.0 also accepts a bare value: API Gateway then
 * answers 200 with it as a JSON body.
 */
export function toStructuredResult(result: unknown): APIGatewayProxyStructuredResultV2 {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) {
    // Payload 1.0 answers set-cookie among its multi-value headers; 2.0 has cookies of their own.
    const { multiValueHeaders, ...structured } = result as APIGatewayProxyStructuredResultV2 & { multiValueHeaders?: Record<string, unknown[]> };
    const cookies = multiValueHeaders?.['set-cookie'];
    return cookies ? { ...structured, cookies: cookies.map(String) } : structured;
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : JSON.stringify(result ?? null),
  };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2, requestId: string): void {
  response.statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  response.setHeader('apigw-requestid', requestId);
  const body = result.body ?? '';
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8'));
}

class BodyTooLarge extends Error {}

/** What is read and dropped of a refused upload before its connection is cut (more than API Gateway takes at all). */
const maxDroppedBytes = 16 * 1024 * 1024;

/** Read and drop the rest of a refused request's body; past `maxDroppedBytes`, or 30 s, cut the connection. */
function dropRest(request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (request.readableEnded || request.destroyed) return resolve();
    let dropped = 0;
    const cut = setTimeout(() => request.destroy(), 30_000);
    cut.unref();
    const done = () => {
      clearTimeout(cut);
      resolve();
    };
    request.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > maxDroppedBytes) request.destroy();
    });
    request.once('end', done);
    request.once('close', done);
    request.resume();
  });
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        request.off('data', onData);
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * The api-docs function's files, written once per process on its first request (as the stack bundles
 * them beside the function) into a temporary directory removed at exit, unless API_DOCS_DIR names one.
 */
function ensureApiDocsFiles(): void {
  if (process.env[apiDocsDirEnvName]) return;
  const directory = writeApiDocsFiles(mkdtempSync(join(tmpdir(), 'api-docs-')));
  process.env[apiDocsDirEnvName] = directory;
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const log = options.log ?? ((line: string) => console.log(line));

  function handlerOf(family: HttpFamily): HttpHandler {
    return options.handlers?.[family] ?? (loadFunctionHandler(family) as HttpHandler);
  }

  const clientLimit = new ClientLimit(options.clientLimit ?? defaultClientLimit);

  async function invoke(family: HttpFamily, event: APIGatewayProxyEventV2 | APIGatewayProxyEvent): Promise<APIGatewayProxyStructuredResultV2> {
    try {
      // The functions' handlers take either payload (shared/http/pipeline.ts); a test's stand-in takes 2.0 only.
      const handler = handlerOf(family) as (event: APIGatewayProxyEventV2 | APIGatewayProxyEvent, context?: Context) => Promise<unknown>;
      return toStructuredResult(await handler(event, lambdaContext(family, event.requestContext.requestId)));
    } catch (error) {
      // API Gateway answers a crashed integration with its own 500; the detail goes to the log only.
      const detail = error instanceof FunctionMissingError ? error.message : ((error as Error).stack ?? String(error));
      const request = 'rawPath' in event ? `${event.routeKey} ${event.rawPath}` : `${event.httpMethod} ${event.path}`;
      console.error(`gateway: ${family} failed on ${request}: ${detail}`);
      return failure(500, 'Internal server error.');
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const now = new Date();
    const requestId = randomUUID();
    const method = (request.method ?? 'GET').toUpperCase();
    const rawPath = (request.url ?? '/').split('?')[0] as string;
    let result: APIGatewayProxyStructuredResultV2;
    if (rawPath === '/_local/health') {
      result = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok"}' };
    } else {
      try {
        const body = await readBody(request);
        if (rawPath.startsWith(publicLinksPrefix)) {
          const event = (route: Route, pathParameters: Record<string, string>) => buildRestEvent(request, body, route, pathParameters, requestId, now, requestTime(now));
          result = await answerPublicLink(clientLimit, request, event, invoke);
        } else {
          const below = rawPath.startsWith(apiPrefix) ? pathBelowApi(rawPath) : undefined;
          const match = below === undefined ? undefined : findRoute(method, below).match;
          const family: HttpFamily = match?.route.family ?? 'fallback';
          if (family === 'api-docs') ensureApiDocsFiles();
          const event = buildEvent(request, body, match, requestId, now);
          if (Buffer.byteLength(JSON.stringify(event)) >= lambdaEventBytes) throw new BodyTooLarge();
          result = await invoke(family, event);
        }
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        result = failure(413, bodyTooLargeMessage);
        // The answer waits until the rest of the upload is read and dropped: a connection closed
        // under a client still writing resets it before it reads the answer. It closes after.
        response.setHeader('connection', 'close');
        await dropRest(request);
      }
    }
    writeResult(response, result, requestId);
    if (!options.quiet) log(`${method} ${rawPath} ${response.statusCode} ${Math.round(performance.now() - started)}ms`);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      console.error(`gateway: ${error.stack ?? error.message}`);
      if (!response.headersSent) writeResult(response, failure(500, 'Internal server error.'), 'none');
    });
  });
  // A request Node cannot parse never reaches `handle`; answer it in the envelope, as a handler would.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return;
    const [status, reason, text] =
      error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'Request header fields too large.'] : [400, 'Bad Request', 'Bad request.'];
    const body = JSON.stringify({ status: 'failed', errors: text });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
