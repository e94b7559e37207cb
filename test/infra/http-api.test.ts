// The HTTP API is one OpenAPI body with exactly the routing table's routes plus the catch-all, each
// on its family's function, served by one throttled, access-logged stage.
import type { Template } from 'aws-cdk-lib/assertions';
import { catchAllRouteKey, fallbackFamily, functionVariable, integrationUri } from '../../infra/stack/http-routes';
import { httpFamilies, routeKey, routes, type HttpFamily } from '../../shared/routes';
import { synthesize, type Synthesized } from './support';

interface CfnResource {
  Properties: Record<string, unknown>;
}

interface Operation {
  parameters?: { name: string; in: string; required: boolean }[];
  security?: unknown;
  'x-amazon-apigateway-integration': { $ref: string };
}

interface Definition {
  openapi: string;
  info: { title: string };
  tags: { name: string; 'x-amazon-apigateway-tag-value': string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { 'x-amazon-apigateway-integrations': Record<string, unknown> };
  'x-amazon-apigateway-cors'?: unknown;
}

describe('HTTP API', () => {
  let synthesized: Synthesized;
  let template: Template;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);

  beforeAll(() => {
    // Routes do not depend on the bundles, so esbuild is skipped; `npm run synth` runs CloudFormation's own checks.
    synthesized = synthesize();
    template = synthesized.template;
  });

  const apiResource = (): CfnResource => {
    const apis = Object.values(template.findResources('AWS::ApiGatewayV2::Api'));
    expect(apis).toHaveLength(1);
    return apis[0] as CfnResource;
  };
  const definition = (): Definition => apiResource().Properties.Body as Definition;

  /** Every operation of the body by the route key API Gateway makes of it. */
  const operations = (): Map<string, Operation> => {
    const byKey = new Map<string, Operation>();
    for (const [path, item] of Object.entries(definition().paths)) {
      for (const [method, operation] of Object.entries(item)) {
        byKey.set(`${method === 'x-amazon-apigateway-any-method' ? 'ANY' : method.toUpperCase()} ${path}`, operation);
      }
    }
    return byKey;
  };

  const functionArn = (family: HttpFamily): unknown => resolve(synthesized.stack.functions.functionOf(family).functionArn);

  test('is defined by its OpenAPI body alone, which CloudFormation takes with no Name, ProtocolType, CORS or Tags beside it', () => {
    expect(apiResource().Properties).toEqual({ Body: expect.any(Object), FailOnWarnings: true });
    expect(definition()).toMatchObject({ openapi: '3.0.1', info: { title: 'email-campaign-dev' } });
    // API Gateway does not support routes or integrations both in a body and as resources.
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', 0);
  });

  test('has exactly one route per routing-table entry plus the catch-all', () => {
    const expected = [...routes.map((route) => routeKey(route)), catchAllRouteKey];
    expect([...operations().keys()].sort()).toEqual(expected.sort());
    expect(operations().has('GET /api/contacts-type')).toBe(true);
    expect(catchAllRouteKey).toBe('ANY /api/{proxy+}');
  });

  test("sends each route to its family's integration, and every other path below /api/ to the fallback", () => {
    const byKey = operations();
    const integrationOf = (key: string) => byKey.get(key)?.['x-amazon-apigateway-integration'];
    for (const route of routes) {
      expect(integrationOf(routeKey(route))).toEqual({ $ref: `#/components/x-amazon-apigateway-integrations/${route.family}` });
    }
    expect(integrationOf(catchAllRouteKey)).toEqual({ $ref: `#/components/x-amazon-apigateway-integrations/${fallbackFamily}` });
  });

  test('declares the path parameters of the routes that have them', () => {
    const byKey = operations();
    const parameterNames = (key: string) => byKey.get(key)?.parameters?.map(({ name, in: location, required }) => `${location}:${name}:${required}`);
    expect(parameterNames('GET /api/docs/{file}')).toEqual(['path:file:true']);
    expect(parameterNames('GET /api/automations/schedule/design/{token}')).toEqual(['path:token:true']);
    expect(parameterNames(catchAllRouteKey)).toEqual(['path:proxy:true']);
    expect(parameterNames('GET /api/contacts-type')).toBeUndefined();
  });

  test('has one Lambda proxy integration per family, payload 2.0, invoking the function its stage variable names', () => {
    const integrations = definition().components['x-amazon-apigateway-integrations'];
    expect(Object.keys(integrations).sort()).toEqual([...httpFamilies].sort());
    for (const family of httpFamilies) {
      expect(integrations[family]).toEqual({ type: 'aws_proxy', httpMethod: 'POST', payloadFormatVersion: '2.0', uri: resolve(integrationUri(family)) });
      expect(JSON.stringify(integrations[family])).toContain(`:function:\${stageVariables.${functionVariable(family)}}/invocations`);
    }
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as CfnResource;
    expect(stage.Properties.StageVariables).toEqual(
      Object.fromEntries(httpFamilies.map((family) => [functionVariable(family), resolve(synthesized.stack.functions.functionOf(family).functionName)])),
    );
    // Stage variable names take letters, digits and underscores only.
    for (const family of httpFamilies) expect(functionVariable(family)).toMatch(/^[A-Za-z0-9_]+$/);
  });

  test('has no authorizer: account routes check their keys in the request pipeline, public ones carry signed tokens', () => {
    const body = JSON.stringify(definition());
    expect(body).not.toContain('security');
    expect(body).not.toContain('authorizer');
  });

  test('lets API Gateway invoke each HTTP function through this API only, with one permission per function', () => {
    const apiId = resolve(synthesized.stack.httpApi.apiId);
    const fromApiGateway = Object.values(template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }));
    const fromThisApi = fromApiGateway.filter((permission) => JSON.stringify(permission).includes(JSON.stringify(apiId)));
    expect(fromThisApi).toHaveLength(httpFamilies.length);
    for (const family of httpFamilies) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: functionArn(family),
        SourceArn: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':execute-api:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':', apiId, '/*']],
        },
      });
    }
  });

  test('deploys one auto-deployed $default stage, throttled at the default the service is sized for', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: resolve(synthesized.stack.httpApi.apiId),
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 250, ThrottlingRateLimit: 250 },
    });
  });

  test('writes one JSON access-log line per request to its own log group', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as CfnResource;
    const settings = stage.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpApiAccessLogs/), 'Arn'] });
    expect(JSON.parse(settings.Format)).toEqual({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      requestTime: '$context.requestTime',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      integrationLatency: '$context.integrationLatency',
      integrationError: '$context.integrationErrorMessage',
    });
  });

  test("carries the stack's tags in its body, and the stage as a property", () => {
    expect(definition().tags).toEqual([
      { name: 'service', 'x-amazon-apigateway-tag-value': 'email-campaign' },
      { name: 'stage', 'x-amazon-apigateway-tag-value': 'dev' },
    ]);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { Tags: { service: 'email-campaign', stage: 'dev' } });
  });

  test('answers no CORS preflight unless corsOrigins is given', () => {
    expect(definition()['x-amazon-apigateway-cors']).toBeUndefined();
  });

  test('is watched on the dashboard by its own metrics: requests, errors and latency by its id', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as CfnResource;
    const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    for (const metric of ['Count', '5xx', '4xx', 'Latency']) {
      const at = parts.findIndex((part) => typeof part === 'string' && part.endsWith(`["AWS/ApiGateway","${metric}","ApiId","`));
      expect(at).toBeGreaterThan(-1);
      expect(parts[at + 1]).toEqual(resolve(synthesized.stack.httpApi.apiId));
    }
  });

  test('outputs the API root ending in /api/', () => {
    template.hasOutput('ApiBaseUrl', {
      Value: { 'Fn::Join': ['', [resolve(synthesized.stack.httpApi.apiEndpoint), '/api/']] },
    });
    expect(resolve(synthesized.stack.httpApi.apiEndpoint)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpApi/), 'ApiEndpoint'] });
  });
});
