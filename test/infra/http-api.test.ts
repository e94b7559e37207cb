// The HTTP API has exactly the routing table's routes plus the catch-all, each on its family's function.
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { routeKey, routes, type HttpFamily } from '../../shared/routes';

interface CfnResource {
  Properties: Record<string, unknown>;
}

describe('HTTP API', () => {
  let stack: EmailCampaignStack;
  let template: Template;

  beforeAll(() => {
    // Routes do not depend on the bundles, so skip esbuild; `npm run synth` runs CloudFormation's own checks.
    const app = new App({
      builtinCloudFormationValidation: false,
      context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [] },
    });
    stack = createEmailCampaignStack(app);
    template = Template.fromStack(stack);
  });

  /** The function ARN a route's integration invokes, as the template writes it. */
  function integratedFunctionArn(key: string): unknown {
    const matching = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: key } }));
    expect(matching).toHaveLength(1);
    const target = (matching[0] as CfnResource).Properties.Target;
    // A route targets `integrations/<integration id>`; find the integration behind the Ref.
    const integrationRef = JSON.stringify(target).match(/"Ref":"([^"]+)"/)?.[1];
    expect(integrationRef).toBeDefined();
    const integration = template.toJSON().Resources[integrationRef as string] as CfnResource & { Type: string };
    expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
    return integration.Properties.IntegrationUri;
  }

  const functionArn = (family: HttpFamily): unknown => stack.resolve(stack.functions.functionOf(family).functionArn);

  test('has one route per routing-table entry plus the catch-all', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
    for (const route of routes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: routeKey(route) });
    }
  });

  test('exposes the contact-type list at GET /api/contacts-type', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /api/contacts-type' });
  });

  test("sends each route to its family's function", () => {
    for (const route of routes) {
      expect(integratedFunctionArn(routeKey(route))).toEqual(functionArn(route.family));
    }
  });

  test('sends every other path below /api/ to the fallback function', () => {
    expect(integratedFunctionArn('ANY /api/{proxy+}')).toEqual(functionArn('fallback'));
  });

  test('integrates with Lambda proxy payload format 2.0', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    expect(Object.keys(integrations).length).toBeGreaterThan(0);
    for (const integration of Object.values(integrations)) {
      expect((integration as CfnResource).Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
      });
    }
  });

  test('lets API Gateway invoke a function only through the routes it serves', () => {
    const fromApiGateway = template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } });
    expect(Object.keys(fromApiGateway)).toHaveLength(routes.length + 1);
    const served = [
      ...routes.map((route) => ({ path: route.path, family: route.family })),
      { path: '{proxy+}', family: 'fallback' as const },
    ];
    for (const { path, family } of served) {
      // The source ARN ends in `<api id>/<stage>/<method>/<route path>`; any stage and method of that path.
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: functionArn(family),
        SourceArn: { 'Fn::Join': ['', Match.arrayWith([`/*/*/api/${path}`])] },
      });
    }
  });

  test('deploys one auto-deployed $default stage, throttled at burst 200 and rate 100', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 },
    });
  });

  test('writes one JSON access-log line per request to its own log group', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as CfnResource;
    const settings = stage.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpApiAccessLogs/), 'Arn'] });
    expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
  });

  test('answers no CORS preflight unless corsOrigins is given', () => {
    const api = Object.values(template.findResources('AWS::ApiGatewayV2::Api'))[0] as CfnResource;
    expect(api.Properties.CorsConfiguration).toBeUndefined();
  });

  test('outputs the API root ending in /api/', () => {
    template.hasOutput('ApiBaseUrl', {
      Value: { 'Fn::Join': ['', [stack.resolve(stack.httpApi.apiEndpoint), '/api/']] },
    });
  });
});
