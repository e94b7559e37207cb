// The HTTP API and its one auto-deployed stage (throttled, access-logged); routes are added from the
// routing table afterwards. The stage throttle is the outer guard against any flood; the per-account
// and per-link limits, with their 429 envelope and X-RateLimit headers, are the functions' own
// (shared/rate-limits/).
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CorsHttpMethod, HttpApi, LogGroupLogDestination, type ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { apiPrefix } from '../../shared/routes';

export interface PublicHttpApi {
  api: HttpApi;
  /** The API root as clients see it, ending in `/api/`. */
  baseUrl: string;
  accessLogs: LogGroup;
}

export interface HttpApiOptions {
  stage: string;
  throttle: ThrottleSettings;
  logRetention: RetentionDays;
  allowDestroy: boolean;
  /** Browser origins allowed by CORS; none turns CORS off (API Gateway then answers no preflight). */
  corsOrigins: string[];
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
  const api = new HttpApi(scope, 'HttpApi', {
    apiName: `email-campaign-${options.stage}`,
    // The built-in default stage takes no throttling settings, so we add our own `$default` below.
    createDefaultStage: false,
    ...(options.corsOrigins.length > 0
      ? {
          corsPreflight: {
            allowOrigins: options.corsOrigins,
            allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.DELETE],
            allowHeaders: ['content-type', 'publickey', 'secretkey'],
          },
        }
      : {}),
  });
  const accessLogs = new LogGroup(scope, 'HttpApiAccessLogs', {
    retention: options.logRetention,
    removalPolicy: options.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  api.addStage('DefaultStage', {
    stageName: '$default',
    autoDeploy: true,
    throttle: options.throttle,
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat },
  });
  // `$default` is served at the endpoint's root, so the stage adds nothing to the path.
  return { api, baseUrl: `${api.apiEndpoint}${apiPrefix}`, accessLogs };
}
