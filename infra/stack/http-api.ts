// The HTTP API, defined by an OpenAPI body generated from the routing table (http-routes.ts), and its
// one auto-deployed stage (throttled, access-logged). The stage throttle is the outer guard against
// any flood; the per-account and per-link limits, with their 429 envelope and X-RateLimit headers,
// are the functions' own (shared/rate-limits/).
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CfnApi, CfnStage, HttpApi, type IHttpApi, type ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { functionVariable, httpApiDefinition } from './http-routes';
import { apiPrefix, httpFamilies, linkRoutes, routeKey, type HttpFamily } from '../../shared/routes';

export interface PublicHttpApi {
  /** The API, for its metrics and endpoint. */
  api: IHttpApi;
  /** The API root as clients see it, ending in `/api/`. */
  baseUrl: string;
  accessLogs: LogGroup;
  /**
   * Deploys the API once the functions exist: the stage naming each family's function, and each
   * function's one invoke permission for this API.
   */
  serve(functionOf: (family: HttpFamily) => IFunction): CfnStage;
}

export interface HttpApiOptions {
  stage: string;
  throttle: ThrottleSettings;
  /**
   * Each public-link route's own throttle: links in mail sent before the public links' REST API
   * (public-links-api.ts) lead here, and a flood on one of them throttles that route alone.
   */
  oldLinkThrottle: Required<ThrottleSettings>;
  logRetention: RetentionDays;
  allowDestroy: boolean;
  /** Browser origins allowed by CORS; none turns CORS off (API Gateway then answers no preflight). */
  corsOrigins: string[];
  /** The stack's tags, which the API carries in its body. */
  tags: Readonly<Record<string, string>>;
}

// One JSON line per request: enough to trace a request into the function's logs by its id.
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

export function createHttpApi(scope: Construct, options: HttpApiOptions): PublicHttpApi {
  // `HttpApi/Resource`, the path CDK's HttpApi gave the API, so the API keeps its logical id.
  const container = new Construct(scope, 'HttpApi');
  // With a Body, CloudFormation refuses Name, ProtocolType, CorsConfiguration and Tags as redundant:
  // the name, CORS and tags are in the body. A warning (a part API Gateway would ignore) fails the deploy.
  const cfnApi = new CfnApi(container, 'Resource', {
    body: httpApiDefinition({ title: `email-campaign-${options.stage}`, tags: options.tags, corsOrigins: options.corsOrigins }),
    failOnWarnings: true,
  });
  const apiEndpoint = cfnApi.attrApiEndpoint;
  const api = HttpApi.fromHttpApiAttributes(container, 'Api', { httpApiId: cfnApi.ref, apiEndpoint });
  const accessLogs = new LogGroup(scope, 'HttpApiAccessLogs', {
    retention: options.logRetention,
    removalPolicy: options.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  const serve = (functionOf: (family: HttpFamily) => IFunction): CfnStage => {
    // Every route and stage of this API, and nothing else, may invoke the family's function: one
    // permission per function rather than one per route.
    const sourceArn = Stack.of(container).formatArn({ service: 'execute-api', resource: cfnApi.ref, resourceName: '*' });
    for (const family of httpFamilies) {
      functionOf(family).addPermission('HttpApiInvoke', { principal: new ServicePrincipal('apigateway.amazonaws.com'), action: 'lambda:InvokeFunction', sourceArn });
    }
    const defaultStage = new Construct(container, 'DefaultStage');
    return new CfnStage(defaultStage, 'Resource', {
      apiId: cfnApi.ref,
      // `$default` is served at the endpoint's root, so the stage adds nothing to the path.
      stageName: '$default',
      autoDeploy: true,
      defaultRouteSettings: { throttlingBurstLimit: options.throttle.burstLimit, throttlingRateLimit: options.throttle.rateLimit },
      routeSettings: Object.fromEntries(
        linkRoutes.map((route) => [routeKey(route), { ThrottlingBurstLimit: options.oldLinkThrottle.burstLimit, ThrottlingRateLimit: options.oldLinkThrottle.rateLimit }]),
      ),
      accessLogSettings: { destinationArn: accessLogs.logGroupArn, format: accessLogFormat.toString() },
      // The integrations invoke the function a stage variable names (http-routes.ts: integrationUri).
      stageVariables: Object.fromEntries(httpFamilies.map((family) => [functionVariable(family), functionOf(family).functionName])),
    });
  };
  return { api, baseUrl: `${apiEndpoint}${apiPrefix}`, accessLogs, serve };
}
