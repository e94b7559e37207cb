// The public links' API: a regional REST API serving the routes links are built to (shared/routes.ts,
// `link`), defined by an OpenAPI body like the HTTP API, with a WAF web ACL whose rate rule limits each
// client address. HTTP APIs take no WAF, and their throttle limits a route, never a client: behind it,
// one address's flood of junk tokens would turn a route into 429s for every tenant's recipients.
import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat, ApiDefinition, Deployment, EndpointType, LogGroupLogDestination, SpecRestApi, Stage } from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { functionVariable, restApiDefinition } from './http-routes';
import { clientLimitResponse, clientLimitWindowSeconds, publicLinksPrefix, publicLinksStage } from '../public-links';
import { linkRoutes, type HttpFamily } from '../../shared/routes';

export interface PublicLinksApiOptions {
  stage: string;
  /** The stage's throttle of each method (API Gateway's outer guard, as on the HTTP API). */
  throttle: { burstLimit: number; rateLimit: number };
  /** Requests per client address per evaluation window before WAF refuses it. */
  clientLimit: number;
  logRetention: RetentionDays;
  allowDestroy: boolean;
}

/** What the alarm and dashboard read of the web ACL's CloudWatch metrics (namespace AWS/WAFV2). */
export interface ClientLimitMetrics {
  webAclName: string;
  ruleMetricName: string;
}

/** The web ACL's one rule: the per-client-address limit. */
const clientLimitRule = 'per-client-address';
const tooManyRequestsBody = 'too-many-requests';

// One JSON line per request, with WAF's verdict, so a refused address shows in the log beside the served ones.
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    method: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    status: '$context.status',
    waf: '$context.wafResponseCode',
    responseLength: '$context.responseLength',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integration.error',
  }),
);

export class PublicLinksApi extends Construct {
  readonly api: SpecRestApi;
  /** The public links' API root as clients see it, ending in `/links/api/` (REST stage URLs carry the stage). */
  readonly baseUrl: string;
  readonly webAcl: CfnWebACL;
  readonly metrics: ClientLimitMetrics;
  /** The one stage, once served. */
  stage: Stage | undefined;
  private readonly body: Record<string, unknown>;

  constructor(scope: Construct, id: string, private readonly options: PublicLinksApiOptions) {
    super(scope, id);
    this.body = restApiDefinition({ title: `email-campaign-${options.stage}-links`, routes: linkRoutes });
    this.api = new SpecRestApi(this, 'Api', {
      restApiName: `email-campaign-${options.stage}-links`,
      apiDefinition: ApiDefinition.fromInline(this.body),
      endpointTypes: [EndpointType.REGIONAL],
      // Deployed once the functions exist: the stage names them (serve below).
      deploy: false,
      // API Gateway writes a REST API's access log only with the account's CloudWatch role set (one per
      // account and region; kept when the stack goes, as other APIs of the account may rely on it).
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
    });
    // Built from the id alone, like the HTTP API's URL: the functions need it, and the stage needs them.
    this.baseUrl = `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}${publicLinksPrefix}`;
    this.metrics = { webAclName: `email-campaign-${options.stage}-public-links`, ruleMetricName: `${options.stage}-${clientLimitRule}` };
    const refusal = clientLimitResponse(options.clientLimit);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: this.metrics.webAclName,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      customResponseBodies: { [tooManyRequestsBody]: { contentType: 'APPLICATION_JSON', content: refusal.body } },
      rules: [
        {
          name: clientLimitRule,
          priority: 0,
          // Aggregated by the address the request comes from (not X-Forwarded-For, which a client writes itself).
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: options.clientLimit, evaluationWindowSec: clientLimitWindowSeconds } },
          action: {
            block: {
              customResponse: {
                responseCode: refusal.statusCode,
                customResponseBodyKey: tooManyRequestsBody,
                // WAF sets the content type from the body's; it takes no content-type header.
                responseHeaders: Object.entries(refusal.headers).filter(([name]) => name !== 'content-type').map(([name, value]) => ({ name, value })),
              },
            },
          },
          visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: this.metrics.ruleMetricName },
        },
      ],
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: this.metrics.webAclName },
    });
  }

  /**
   * Deploys the API once the functions exist: the stage naming each family's function, the web ACL on
   * it, and each function's one invoke permission for this API.
   */
  serve(functionOf: (family: HttpFamily) => IFunction): Stage {
    const sourceArn = Stack.of(this).formatArn({ service: 'execute-api', resource: this.api.restApiId, resourceName: '*' });
    const families = [...new Set(linkRoutes.map((route) => route.family))];
    for (const family of families) {
      functionOf(family).addPermission('PublicLinksInvoke', { principal: new ServicePrincipal('apigateway.amazonaws.com'), action: 'lambda:InvokeFunction', sourceArn });
    }
    const deployment = new Deployment(this, 'Deployment', { api: this.api });
    // A new body needs a new deployment for the stage to serve it.
    deployment.addToLogicalId(this.body);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: this.options.logRetention,
      removalPolicy: this.options.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    const stage = new Stage(this, 'Stage', {
      deployment,
      stageName: publicLinksStage,
      throttlingBurstLimit: this.options.throttle.burstLimit,
      throttlingRateLimit: this.options.throttle.rateLimit,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      accessLogFormat,
      // The integrations invoke the function a stage variable names (http-routes.ts: integrationUri).
      variables: Object.fromEntries(families.map((family) => [functionVariable(family), functionOf(family).functionName])),
    });
    this.api.deploymentStage = stage;
    this.stage = stage;
    new CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: stage.stageArn, webAclArn: this.webAcl.attrArn });
    return stage;
  }
}
