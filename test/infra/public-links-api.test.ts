// The public links go through a REST API behind a WAF rate rule per client address; the links already
// mailed keep working on the HTTP API, where each such route has a throttle of its own.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { functionVariable, integrationUri } from '../../infra/stack/http-routes';
import { linkRoutes, routeKey, routes } from '../../shared/routes';
import { defaultSettings } from '../../infra/stack/settings';
import { functionProperties, synthesize, type Synthesized } from './support';

interface CfnResource {
  Properties: Record<string, unknown>;
  DependsOn?: string[];
}

describe('public links API', () => {
  let synthesized: Synthesized;
  let template: Template;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);
  const only = (type: string): CfnResource => {
    const found = Object.values(template.findResources(type));
    expect(found).toHaveLength(1);
    return found[0] as CfnResource;
  };

  beforeAll(() => {
    synthesized = synthesize({ publicClientLimit: 300 });
    template = synthesized.template;
  });

  test('every public route a link is built to is a link route; the API docs are the only public routes that are not', () => {
    const publicNotLinked = routes.filter((route) => route.auth === 'public' && !route.link).map((route) => route.family);
    expect([...new Set(publicNotLinked)]).toEqual(['api-docs']);
    expect(linkRoutes.map(routeKey)).toEqual(
      expect.arrayContaining(['GET /api/public/open', 'GET /api/public/click', 'POST /api/public/unsubscribe', 'GET /api/public/senders/confirm', 'GET /api/assets/previews/{file}']),
    );
  });

  test("is one regional REST API whose body has exactly the link routes, each a payload 1.0 proxy to its family's function", () => {
    const api = only('AWS::ApiGateway::RestApi');
    expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    const body = api.Properties.Body as { paths: Record<string, Record<string, { 'x-amazon-apigateway-integration': unknown }>>; [key: string]: unknown };
    const keys = Object.entries(body.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(keys.sort()).toEqual(linkRoutes.map(routeKey).sort());
    for (const route of linkRoutes) {
      expect(body.paths[`/api/${route.path}`]?.[route.method.toLowerCase()]?.['x-amazon-apigateway-integration']).toEqual({
        type: 'aws_proxy',
        httpMethod: 'POST',
        uri: resolve(integrationUri(route.family)),
      });
    }
    expect(body['x-amazon-apigateway-binary-media-types']).toEqual(['*/*']);
    expect(body['x-amazon-apigateway-gateway-responses']).toEqual({
      MISSING_AUTHENTICATION_TOKEN: { statusCode: '404', responseTemplates: { 'application/json': '{"status":"failed","errors":"Not Found."}' } },
    });
    // Routes and methods live in the body alone: no resource each.
    template.resourceCountIs('AWS::ApiGateway::Method', 0);
    template.resourceCountIs('AWS::ApiGateway::Resource', 0);
  });

  test("has one stage, 'links', throttled, access-logged, naming each family's function; API Gateway may invoke each of them", () => {
    const stage = only('AWS::ApiGateway::Stage');
    expect(stage.Properties).toMatchObject({
      StageName: 'links',
      RestApiId: resolve(synthesized.stack.publicLinks.api.restApiId),
      MethodSettings: [{ HttpMethod: '*', ResourcePath: '/*', ThrottlingBurstLimit: defaultSettings.apiThrottle.burstLimit, ThrottlingRateLimit: defaultSettings.apiThrottle.rateLimit, DataTraceEnabled: false }],
      AccessLogSetting: { DestinationArn: expect.anything(), Format: expect.stringContaining('"waf":"$context.wafResponseCode"') },
    });
    const families = [...new Set(linkRoutes.map((route) => route.family))];
    expect(stage.Properties.Variables).toEqual(Object.fromEntries(families.map((family) => [functionVariable(family), resolve(synthesized.stack.functions.functionOf(family).functionName)])));
    // REST access logs need API Gateway's account role, set before the stage.
    expect(stage.DependsOn).toEqual([expect.stringMatching(/^PublicLinksApiAccount/)]);
    for (const family of families) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Principal: 'apigateway.amazonaws.com',
        FunctionName: resolve(synthesized.stack.functions.functionOf(family).functionArn),
        SourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':execute-api:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':', resolve(synthesized.stack.publicLinks.api.restApiId), '/*']] },
      });
    }
  });

  test('is guarded by a regional web ACL whose rate rule refuses an address past publicClientLimit a minute with a 429 envelope and Retry-After', () => {
    const acl = only('AWS::WAFv2::WebACL');
    expect(acl.Properties).toEqual({
      Name: 'email-campaign-dev-public-links',
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: {
        'too-many-requests': { ContentType: 'APPLICATION_JSON', Content: '{"status":"failed","errors":"Too many requests: at most 300 per minute per client address. Try again in 1 minute."}' },
      },
      Rules: [
        {
          Name: 'per-client-address',
          Priority: 0,
          Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 300, EvaluationWindowSec: 60 } },
          Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests', ResponseHeaders: [{ Name: 'retry-after', Value: '60' }] } } },
          VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true, MetricName: 'dev-per-client-address' },
        },
      ],
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true, MetricName: 'email-campaign-dev-public-links' },
      Tags: expect.any(Array),
    });
    expect(only('AWS::WAFv2::WebACLAssociation').Properties).toEqual({
      WebACLArn: { 'Fn::GetAtt': [expect.stringMatching(/^PublicLinksWebAcl/), 'Arn'] },
      ResourceArn: resolve(synthesized.stack.publicLinks.stage?.stageArn),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/WAFV2',
      MetricName: 'BlockedRequests',
      Dimensions: Match.arrayWith([{ Name: 'Region', Value: { Ref: 'AWS::Region' } }, { Name: 'Rule', Value: 'dev-per-client-address' }, { Name: 'WebACL', Value: 'email-campaign-dev-public-links' }]),
      Threshold: 1,
    });
  });

  test('the functions build their links, and SES its verification redirects, on the REST API', () => {
    const linksBase = resolve(synthesized.stack.publicLinks.baseUrl);
    expect(functionProperties(synthesized, 'single-sends').Environment.Variables.PUBLIC_BASE_URL).toEqual(linksBase);
    expect(functionProperties(synthesized, 'send-deliver').Environment.Variables.PUBLIC_BASE_URL).toEqual(linksBase);
    expect(JSON.stringify(linksBase)).toContain(JSON.stringify(resolve(synthesized.stack.publicLinks.api.restApiId)));
    expect(JSON.stringify(linksBase)).toContain('/links/api/');
    expect(JSON.stringify(template.toJSON())).toContain('/links/api/public/senders/verified');
  });

  test('the HTTP API keeps serving links already mailed, each link route with a throttle of its own (oldLinkThrottle*)', () => {
    const stage = only('AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.RouteSettings).toEqual(Object.fromEntries(linkRoutes.map((route) => [routeKey(route), { ThrottlingBurstLimit: 100, ThrottlingRateLimit: 50 }])));
    const tuned = synthesize({ oldLinkThrottleBurst: 20, oldLinkThrottleRate: 10 }).template;
    const tunedStage = Object.values(tuned.findResources('AWS::ApiGatewayV2::Stage'))[0] as CfnResource;
    expect((tunedStage.Properties.RouteSettings as Record<string, unknown>)['GET /api/public/open']).toEqual({ ThrottlingBurstLimit: 20, ThrottlingRateLimit: 10 });
  });
});
