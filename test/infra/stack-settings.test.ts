// Context settings change the stack as documented: stage name, allowDestroy, log retention, API
// throttling, SES rate and concurrency, sender domain, system From address, alarm e-mail, CORS, and
// the limits past which a send pauses itself.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, mailSendingContainers, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { readSettings } from '../../infra/stack/settings';

// Settings do not touch the bundles, so skip esbuild; `npm run synth` runs CloudFormation's own checks.
function appWith(context: Record<string, unknown>): App {
  return new App({ builtinCloudFormationValidation: false, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], ...context } });
}

describe('stack settings from context', () => {
  let stack: EmailCampaignStack;
  let template: Template;

  beforeAll(() => {
    // Strings, as `cdk synth -c key=value` passes them.
    const app = appWith({
      stage: 'qa',
      allowDestroy: 'true',
      logRetentionDays: '7',
      apiThrottleBurst: '50',
      apiThrottleRate: '25',
      sesMaxSendRate: '50',
      deliveryConcurrency: '4',
      senderDomain: 'Mail.Example.ORG',
      systemFromEmail: 'robot@mail.example.org',
      alarmEmail: 'ops@example.org',
      corsOrigins: 'https://app.example.org, https://admin.example.org',
      bouncePauseRate: '0.02',
      complaintPauseRate: '0.0005',
      pauseMinDeliveries: '500',
    });
    stack = createEmailCampaignStack(app);
    template = Template.fromStack(stack);
  });

  test('names the stack after the stage', () => {
    expect(stack.stackName).toBe('email-campaign-qa');
    // The API's name is the title of its OpenAPI body (http-routes.ts).
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { Body: { info: { title: 'email-campaign-qa' } } });
  });

  test('allowDestroy lets the table go with the stack, without deletion protection', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false },
    });
  });

  test('allowDestroy lets the log groups go with the stack', () => {
    const logGroups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(logGroups.length).toBeGreaterThan(0);
    for (const logGroup of logGroups) expect(logGroup).toMatchObject({ DeletionPolicy: 'Delete' });
  });

  test('logRetentionDays sets every log group retention', () => {
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  test('apiThrottleBurst and apiThrottleRate set the stage throttling', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingBurstLimit: 50, ThrottlingRateLimit: 25 },
    });
  });

  test('senderDomain names the SES identity; systemFromEmail the From of system mail', () => {
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail.example.org' });
    expect(stack.settings.systemFromEmail).toBe('robot@mail.example.org');
  });

  test('alarmEmail subscribes that address to the alarm topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.org' });
  });

  test('corsOrigins turns CORS on for exactly those origins', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      Body: {
        'x-amazon-apigateway-cors': {
          allowOrigins: ['https://app.example.org', 'https://admin.example.org'],
          allowMethods: ['GET', 'POST', 'DELETE'],
          allowHeaders: ['content-type', 'publickey', 'secretkey'],
        },
      },
    });
  });

  test('sesMaxSendRate and deliveryConcurrency cap the deliverers below the SES rate', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 4 } });
    const deliverId = (stack.resolve(stack.functions.functionOf('send-deliver').functionArn) as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] as string;
    const deliver = template.toJSON().Resources[deliverId] as { Properties: { Environment: { Variables: Record<string, string> } } };
    const rate = Number(deliver.Properties.Environment.Variables.SES_MAX_SEND_RATE);
    const senders = mailSendingContainers(4);
    expect(rate * senders).toBeLessThan(50);
    expect(rate * senders).toBeGreaterThan(40);
  });

  test('bouncePauseRate, complaintPauseRate and pauseMinDeliveries reach the function that pauses sends', () => {
    const variables = (name: string) => {
      const id = (stack.resolve(stack.functions.functionOf(name).functionArn) as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] as string;
      return (template.toJSON().Resources[id] as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties.Environment.Variables;
    };
    expect(variables('ses-events')).toMatchObject({ BOUNCE_PAUSE_RATE: '0.02', COMPLAINT_PAUSE_RATE: '0.0005', PAUSE_MIN_DELIVERIES: '500' });
    expect(variables('contacts').BOUNCE_PAUSE_RATE).toBeUndefined();
    // Unset, the function keeps shared/config.ts's defaults (5%, 0.1%, 100).
    const plain = createEmailCampaignStack(appWith({ stage: 'plain' }));
    const plainId = (plain.resolve(plain.functions.functionOf('ses-events').functionArn) as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] as string;
    const plainVariables = (Template.fromStack(plain).toJSON().Resources[plainId] as { Properties: { Environment: { Variables: Record<string, string> } } }).Properties.Environment.Variables;
    expect(plainVariables).not.toHaveProperty('BOUNCE_PAUSE_RATE');
  });

  test('the defaults are stage dev, retained data, 30-day logs, 250/250 throttling, reservations a default account allows and the SES starting quota', () => {
    expect(readSettings(new App().node)).toEqual({
      stage: 'dev',
      allowDestroy: false,
      logRetention: 30,
      apiThrottle: { burstLimit: 250, rateLimit: 250 },
      publicClientLimit: 600,
      oldLinkThrottle: { burstLimit: 100, rateLimit: 50 },
      reservedConcurrency: { http: 13, sesEvents: 5, dispatch: 10 },
      lambdaConcurrencyQuota: 1000,
      sesMaxSendRate: 14,
      deliveryConcurrency: 2,
      senderDomain: 'example.com',
      systemFromEmail: 'no-reply@example.com',
      alarmEmail: undefined,
      corsOrigins: [],
    });
  });

  test('JSON values from cdk.json are read like their string forms', () => {
    const fromJson = readSettings(appWith({ allowDestroy: true, logRetentionDays: 7, apiThrottleBurst: 50 }).node);
    expect(fromJson).toMatchObject({ allowDestroy: true, logRetention: 7, apiThrottle: { burstLimit: 50 } });
  });

  test.each([
    [{ allowDestroy: 'yes' }, /allowDestroy must be true or false/],
    [{ logRetentionDays: '10' }, /logRetentionDays must be one of/],
    [{ apiThrottleBurst: '0' }, /apiThrottleBurst must be a positive integer/],
    [{ apiThrottleRate: 'fast' }, /apiThrottleRate must be a positive integer/],
    [{ publicClientLimit: '9' }, /publicClientLimit must be between 10 and 2000000000/],
    [{ oldLinkThrottleRate: '0' }, /oldLinkThrottleRate must be a positive integer/],
    [{ stage: 'Prod_1' }, /stage must be lower-case letters/],
    [{ sesMaxSendRate: '0' }, /sesMaxSendRate must be a positive number/],
    [{ deliveryConcurrency: '1' }, /deliveryConcurrency must be between 2 and 1000/],
    [{ senderDomain: 'not a domain' }, /senderDomain must be a domain name/],
    [{ systemFromEmail: 'nobody' }, /systemFromEmail must be an email address/],
    [{ alarmEmail: 'ops' }, /alarmEmail must be an email address/],
    [{ corsOrigins: 'app.example.org' }, /corsOrigins must list origins/],
    [{ bouncePauseRate: '5' }, /bouncePauseRate must be a fraction above 0 and at most 1/],
    [{ complaintPauseRate: '0' }, /complaintPauseRate must be a fraction above 0 and at most 1/],
    [{ pauseMinDeliveries: '1.5' }, /pauseMinDeliveries must be a positive integer/],
    [{ httpReservedConcurrency: '-1' }, /httpReservedConcurrency must be 0 or a positive integer/],
    [{ sesEventsReservedConcurrency: 'all' }, /sesEventsReservedConcurrency must be 0 or a positive integer/],
    [{ lambdaConcurrencyQuota: '0' }, /lambdaConcurrencyQuota must be a positive integer/],
  ])('rejects %j before building anything', (context, message) => {
    expect(() => createEmailCampaignStack(appWith(context))).toThrow(message);
  });
});
