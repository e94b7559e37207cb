// The webhook side of the stack: its own queue and dead-letter queue, feeding webhook-deliver, which
// queues its retries, probes and drains on that queue and touches only webhook items of the table,
// and the key webhook secrets are sealed with, read only where they are sealed and opened.
import { Match, Template } from 'aws-cdk-lib/assertions';
import { functionTimeoutSeconds } from '../../infra/function-timeouts';
import { drainSweepDelaySeconds } from '../../shared/webhook-delivery/circuit-service';
import { maxDelaySeconds, maxReceiveCountOf, queueUrlEnvName } from '../../shared/queue/queues';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { functionProperties, grantsFor, synthesize, type Synthesized } from './support';

const allFunctions = [...httpFamilies, ...eventFunctionNames()];

describe('webhook deliveries', () => {
  let synthesized: Synthesized;
  let template: Template;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);

  beforeAll(() => {
    synthesized = synthesize();
    template = synthesized.template;
  });

  test('the webhook queue dead-letters after its receive count, and keeps messages longer than their longest delay', () => {
    const { deadLetters } = synthesized.stack.platform.queueOf('webhooks');
    const [properties] = Object.values(template.findResources('AWS::SQS::Queue', { Properties: { RedrivePolicy: { deadLetterTargetArn: resolve(deadLetters.queueArn) } } })).map(
      (resource) => (resource as { Properties: { RedrivePolicy: { maxReceiveCount: number }; MessageRetentionPeriod: number; VisibilityTimeout: number } }).Properties,
    );
    expect(properties?.RedrivePolicy.maxReceiveCount).toBe(maxReceiveCountOf('webhooks'));
    expect(properties?.MessageRetentionPeriod).toBeGreaterThan(maxDelaySeconds + 3_600);
    expect(properties?.VisibilityTimeout).toBe((functionProperties(synthesized, 'webhook-deliver').Timeout as number) * 6);
  });

  test('feeds webhook-deliver, which knows its queue and may send to it (retries, probes, drains), and only that', () => {
    const { queue } = synthesized.stack.platform.queueOf('webhooks');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^FunctionsWebhookDeliver') },
      EventSourceArn: resolve(queue.queueArn),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(functionProperties(synthesized, 'webhook-deliver').Environment.Variables[queueUrlEnvName('webhooks')]).toEqual(resolve(queue.queueUrl));
    const role = resolve(synthesized.stack.functions.functionOf('webhook-deliver').role?.roleName);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify((policy as { Properties: { Roles: unknown } }).Properties.Roles) === JSON.stringify([role]),
    );
    const actions = policies.flatMap((policy) =>
      (policy as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } }).Properties.PolicyDocument.Statement.flatMap((statement) => statement.Action),
    );
    expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'dynamodb:GetItem']));
    expect(grantsFor(synthesized, 'webhook-deliver', 'sqs:SendMessage')).toEqual({ 'sqs:SendMessage': [JSON.stringify(resolve(queue.queueArn))] });
    expect(actions.filter((action) => action.startsWith('dynamodb:')).sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
  });

  test('a drain sweeps again only after any webhook-deliver run that read the circuit open has ended', () => {
    expect(drainSweepDelaySeconds).toBeGreaterThan(functionTimeoutSeconds('webhook-deliver'));
  });

  test('the webhook secret key is a secret of its own, kept with the stack\'s removal, read only by the functions that seal and open webhook secrets', () => {
    const { webhookSecretKey, tokenSigningKey } = synthesized.stack.platform;
    const keyArn = resolve(webhookSecretKey.secretArn);
    expect(keyArn).not.toEqual(resolve(tokenSigningKey.secretArn));
    const [logicalId] = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((id) => JSON.stringify(keyArn).includes(id));
    expect(template.toJSON().Resources[logicalId as string]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });

    const readers = allFunctions.filter((name) => (grantsFor(synthesized, name, 'secretsmanager:')['secretsmanager:GetSecretValue'] ?? []).includes(JSON.stringify(keyArn)));
    expect(readers.sort()).toEqual(['webhook-deliver', 'webhooks']);
    for (const name of allFunctions) {
      const environment = functionProperties(synthesized, name).Environment.Variables;
      expect({ name, arn: environment.WEBHOOK_SECRET_KEY_SECRET_ARN }).toEqual({ name, arn: readers.includes(name) ? keyArn : undefined });
      expect(environment.WEBHOOK_SECRET_KEY).toBeUndefined();
    }
  });

  test('webhook-deliver, which connects to hosts tenants choose, holds no token-signing key', () => {
    const environment = functionProperties(synthesized, 'webhook-deliver').Environment.Variables;
    expect(environment.TOKEN_SIGNING_KEY_SECRET_ARN).toBeUndefined();
    expect(grantsFor(synthesized, 'webhook-deliver', 'secretsmanager:')).toEqual({
      'secretsmanager:GetSecretValue': [JSON.stringify(resolve(synthesized.stack.platform.webhookSecretKey.secretArn))],
    });
  });

  test('the webhook dead-letter queue alarms on its first message', () => {
    const { deadLetters } = synthesized.stack.platform.queueOf('webhooks');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: resolve(deadLetters.queueName) }],
      Threshold: 1,
    });
  });
});
