// The HTTP API's OpenAPI definition, generated from the one routing table: every route of
// shared/routes.ts plus the catch-all, each on its family's function. Defined in the API's `Body`,
// routes and integrations are no CloudFormation resources of their own, so a new route costs the
// stack nothing (CloudFormation refuses a stack of more than 500 resources).
import { Aws } from 'aws-cdk-lib';
import { apiPrefix, httpFamilies, routeKey, routes, type HttpFamily } from '../../shared/routes';

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

/** Path, method key and operation of a route key such as `GET /api/docs/{file}`. */
function operationOf(key: string, family: HttpFamily): { path: string; method: string; operation: Operation } {
  const [method, path] = key.split(' ') as [string, string];
  const parameters = [...path.matchAll(/\{([^}+]+)\+?\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return {
    path,
    method: method === 'ANY' ? 'x-amazon-apigateway-any-method' : method.toLowerCase(),
    operation: {
      ...(parameters.length > 0 ? { parameters } : {}),
      // The function writes the whole response (Lambda proxy); OpenAPI requires the member.
      responses: { default: { description: `The ${family} function's response` } },
      'x-amazon-apigateway-integration': { $ref: `#/components/x-amazon-apigateway-integrations/${family}` },
    },
  };
}

/**
 * The OpenAPI 3.0 document API Gateway imports (HTTP API extensions: x-amazon-apigateway-integration,
 * -any-method, -cors, -tag-value). No route has an authorizer: the API contract fixes authentication
 * as the PublicKey/SecretKey headers, checked for every account route in the one request pipeline
 * (shared/http/pipeline.ts), and public routes are pages reached from mail that carry signed tokens;
 * an API Gateway authorizer would repeat the same table read on every request.
 */
export function httpApiDefinition(options: HttpApiDefinitionOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  const add = (key: string, family: HttpFamily) => {
    const { path, method, operation } = operationOf(key, family);
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`Route ${key} is defined twice`);
    item[method] = operation;
  };
  for (const route of routes) add(routeKey(route), route.family);
  add(catchAllRouteKey, fallbackFamily);
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
