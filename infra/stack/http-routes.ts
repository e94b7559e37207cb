// The HTTP API's OpenAPI definition, generated from the one routing table: every route of
// shared/routes.ts plus the catch-all, each on its family's function. Defined in the API's `Body`,
// routes and integrations are no CloudFormation resources of their own, so a new route costs the
// stack nothing (CloudFormation refuses a stack of more than 500 resources).
import { Aws } from 'aws-cdk-lib';
import { notServedResponse } from '../public-links';
import { apiPrefix, httpFamilies, routeKey, routes, type HttpFamily, type Route } from '../../shared/routes';

/** The family whose function answers every path the routing table does not know. */
export const fallbackFamily: HttpFamily = 'fallback';

/** The catch-all below the API root; API Gateway prefers any route of the table to it. */
export const catchAllRouteKey = `ANY ${apiPrefix}{proxy+}`;

/** The stage variable holding the name of a family's function (letters, digits and underscores only). */
export function functionVariable(family: HttpFamily): string {
  return `function_${family.replace(/-/g, '_')}`;
}

/**
 * The Lambda invocation URI of a family's integration. It names the function through a stage
 * variable because the functions need the API's URL (links in responses and mail): naming them in
 * the API itself would make the API and the functions depend on each other.
 */
export function integrationUri(family: HttpFamily): string {
  const functionArn = `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:\${stageVariables.${functionVariable(family)}}`;
  return `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${functionArn}/invocations`;
}

export interface HttpApiDefinitionOptions {
  /** The API's name. */
  title: string;
  /** AWS tags of the API (CloudFormation takes no Tags beside a Body). */
  tags: Readonly<Record<string, string>>;
  /** Browser origins allowed by CORS; none turns CORS off (API Gateway then answers no preflight). */
  corsOrigins: readonly string[];
}

type Operation = Record<string, unknown>;

/** Path, method key and operation of a route key such as `GET /api/docs/{file}`, on the given integration. */
function operationOf(key: string, family: HttpFamily, integration: Record<string, unknown>): { path: string; method: string; operation: Operation } {
  const [method, path] = key.split(' ') as [string, string];
  const parameters = [...path.matchAll(/\{([^}+]+)\+?\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return {
    path,
    method: method === 'ANY' ? 'x-amazon-apigateway-any-method' : method.toLowerCase(),
    operation: {
      ...(parameters.length > 0 ? { parameters } : {}),
      // The function writes the whole response (Lambda proxy); OpenAPI requires the member.
      responses: { default: { description: `The ${family} function's response` } },
      'x-amazon-apigateway-integration': integration,
    },
  };
}

/** The operations of these route keys by path and method key, refusing a route defined twice. */
function pathsOf(entries: readonly (readonly [key: string, family: HttpFamily, integration: Record<string, unknown>])[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const [key, family, integration] of entries) {
    const { path, method, operation } = operationOf(key, family, integration);
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`Route ${key} is defined twice`);
    item[method] = operation;
  }
  return paths;
}

/**
 * The OpenAPI 3.0 document API Gateway imports (HTTP API extensions: x-amazon-apigateway-integration,
 * -any-method, -cors, -tag-value). No route has an authorizer: the API contract fixes authentication
 * as the PublicKey/SecretKey headers, checked for every account route in the one request pipeline
 * (shared/http/pipeline.ts), and public routes are pages reached from mail that carry signed tokens;
 * an API Gateway authorizer would repeat the same table read on every request.
 */
export function httpApiDefinition(options: HttpApiDefinitionOptions): Record<string, unknown> {
  const shared = (family: HttpFamily) => ({ $ref: `#/components/x-amazon-apigateway-integrations/${family}` });
  const paths = pathsOf([...routes.map((route) => [routeKey(route), route.family, shared(route.family)] as const), [catchAllRouteKey, fallbackFamily, shared(fallbackFamily)]]);
  return {
    openapi: '3.0.1',
    info: { title: options.title, version: '1.0' },
    tags: Object.entries(options.tags).map(([name, value]) => ({ name, 'x-amazon-apigateway-tag-value': value })),
    paths,
    components: {
      // One integration per family, shared by its routes, as one function serves the family.
      'x-amazon-apigateway-integrations': Object.fromEntries(
        httpFamilies.map((family) => [
          family,
          // Payload 2.0 is what the handlers parse.
          { type: 'aws_proxy', httpMethod: 'POST', uri: integrationUri(family), payloadFormatVersion: '2.0' },
        ]),
      ),
    },
    ...(options.corsOrigins.length > 0
      ? {
          'x-amazon-apigateway-cors': {
            allowOrigins: [...options.corsOrigins],
            allowMethods: ['GET', 'POST', 'DELETE'],
            allowHeaders: ['content-type', 'publickey', 'secretkey'],
          },
        }
      : {}),
  };
}

/**
 * The OpenAPI 3.0 document of a REST API serving these routes (the public links), each on its
 * family's function through the same stage-variable URI. REST APIs take no shared integrations, so
 * each operation carries its own; payload 1.0 is what a REST proxy integration sends (the pipeline
 * reads it, shared/http/rest-event.ts). Every body arrives base64-encoded (every media type is binary), so
 * nothing is re-encoded on the way, and an image goes out as the bytes its function encoded.
 */
export function restApiDefinition(options: { title: string; routes: readonly Route[] }): Record<string, unknown> {
  const integration = (family: HttpFamily) => ({ type: 'aws_proxy', httpMethod: 'POST', uri: integrationUri(family) });
  return {
    openapi: '3.0.1',
    info: { title: options.title, version: '1.0' },
    paths: pathsOf(options.routes.map((route) => [routeKey(route), route.family, integration(route.family)] as const)),
    'x-amazon-apigateway-binary-media-types': ['*/*'],
    'x-amazon-apigateway-gateway-responses': {
      // A path or method without a route: the HTTP API's 404 rather than API Gateway's 403.
      MISSING_AUTHENTICATION_TOKEN: { statusCode: String(notServedResponse.statusCode), responseTemplates: { 'application/json': notServedResponse.body } },
    },
  };
}
