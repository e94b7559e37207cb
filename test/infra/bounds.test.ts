// Every trigger and function is bounded within the account's quotas: each queue's consumers are capped,
// ses-events, the dispatcher and the HTTP functions keep a reserved share that a default account
// allows, the delivery queue keeps a backlog 14 days and alarms at 2, every queue alarms on age,
// throttled receives cannot dead-letter a message early, and the stage throttle is sized for the load.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { queueConsumers, queueNames } from '../../shared/queue/queues';
import { httpFamilies } from '../../shared/routes';
import { functionProperties, logicalIdOf, synthesize, type Synthesized } from './support';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

const resourcesOf = (synthesized: Synthesized, type: string): Resource[] =>
  Object.values(synthesized.template.toJSON().Resources as Record<string, Resource>).filter((resource) => resource.Type === type);

const reservedOf = (synthesized: Synthesized, name: string): unknown => functionProperties(synthesized, name).ReservedConcurrentExecutions;

/** The maximum concurrency of the ses-events queue's event source. */
const sesEventsCap = (synthesized: Synthesized): unknown =>
  resourcesOf(synthesized, 'AWS::Lambda::EventSourceMapping').find((mapping) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: logicalIdOf(synthesized, 'ses-events') }))?.Properties.ScalingConfig;

const stageThrottle = (synthesized: Synthesized): unknown => resourcesOf(synthesized, 'AWS::ApiGatewayV2::Stage')[0]?.Properties.DefaultRouteSettings;

describe('the stack as deployed by default', () => {
  let synthesized: Synthesized;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);

  beforeAll(() => {
    synthesized = synthesize();
  });

  test('caps the consumers of every queue, together under a tenth of a default account', () => {
    const caps = Object.fromEntries(
      queueNames.map((queue) => {
        const consumer = logicalIdOf(synthesized, queueConsumers[queue]);
        const [mapping, ...others] = resourcesOf(synthesized, 'AWS::Lambda::EventSourceMapping').filter(
          (resource) => JSON.stringify(resource.Properties.FunctionName) === JSON.stringify({ Ref: consumer }),
        );
        expect(others).toEqual([]);
        expect(mapping?.Properties.EventSourceArn).toEqual(resolve(synthesized.stack.platform.queueOf(queue).queue.queueArn));
        return [queue, (mapping?.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency];
      }),
    );
    expect(caps).toEqual({ deliveries: 2, imports: 5, jobs: 5, webhooks: 25, 'ses-events': 5 });
    expect(Object.values(caps).reduce((sum: number, cap) => sum + (cap ?? Infinity), 0)).toBeLessThanOrEqual(100);
  });

  test('reserves concurrency for ses-events, the dispatcher and each HTTP function, leaving a default account room for two more stages', () => {
    expect(reservedOf(synthesized, 'ses-events')).toBe(5);
    expect(reservedOf(synthesized, 'send-dispatch')).toBe(10);
    for (const family of httpFamilies) expect([family, reservedOf(synthesized, family)]).toEqual([family, 13]);
    expect(reservedOf(synthesized, 'automation-steps')).toBe(1);

    const reserved = resourcesOf(synthesized, 'AWS::Lambda::Function').reduce((sum, fn) => sum + ((fn.Properties.ReservedConcurrentExecutions as number | undefined) ?? 0), 0);
    expect(reserved).toBe(httpFamilies.length * 13 + 5 + 10 + 1);
    // Lambda keeps 100 of the default 1,000 unreserved: three stages of this size fit in one account.
    expect(3 * reserved).toBeLessThanOrEqual(1000 - 100);
  });

  test('keeps deliveries 14 days, and alarms at 2 days of waiting', () => {
    const queueId = (resolve(synthesized.stack.platform.queueOf('deliveries').queue.queueArn) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const queue = synthesized.template.toJSON().Resources[queueId] as Resource;
    expect(queue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    const ageAlarms = resourcesOf(synthesized, 'AWS::CloudWatch::Alarm').filter(
      (alarm) =>
        alarm.Properties.MetricName === 'ApproximateAgeOfOldestMessage' &&
        JSON.stringify(alarm.Properties.Dimensions).includes(JSON.stringify(resolve(synthesized.stack.platform.queueOf('deliveries').queue.queueName))),
    );
    expect(ageAlarms.map((alarm) => alarm.Properties.Threshold)).toEqual([2 * 24 * 3600]);
  });

  test('every queue, the webhooks queue included, alarms on the age of its oldest message', () => {
    for (const queue of queueNames) {
      const name = JSON.stringify(resolve(synthesized.stack.platform.queueOf(queue).queue.queueName));
      const alarms = resourcesOf(synthesized, 'AWS::CloudWatch::Alarm').filter(
        (alarm) => alarm.Properties.MetricName === 'ApproximateAgeOfOldestMessage' && JSON.stringify(alarm.Properties.Dimensions).includes(name),
      );
      expect([queue, alarms.length]).toEqual([queue, 1]);
    }
  });

  test('every redrive policy allows at least 5 receives, so throttled receives cannot dead-letter a message early', () => {
    const redriven = resourcesOf(synthesized, 'AWS::SQS::Queue').filter((queue) => queue.Properties.RedrivePolicy !== undefined);
    expect(redriven).toHaveLength(queueNames.length);
    for (const queue of redriven) expect((queue.Properties.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBeGreaterThanOrEqual(5);
    // The deliverer gives up (records its recipients) on the receive the queue dead-letters after.
    expect(functionProperties(synthesized, 'send-deliver').Environment.Variables.DELIVERY_MAX_RECEIVES).toBe('5');
  });

  test('sizes the stage throttle from four accounts at their limit and the public pages of mail at the SES rate', () => {
    // 4 x 50 requests a second + 3 x 14 mails a second = 242, rounded up to tens; a burst of one second.
    expect(stageThrottle(synthesized)).toEqual({ ThrottlingRateLimit: 250, ThrottlingBurstLimit: 250 });
  });
});

describe('the bounds follow the settings', () => {
  const synthesizeWith = (context: Record<string, unknown>): Synthesized => synthesize(context);

  test('a higher SES rate raises the stage throttle, the HTTP reservations and ses-events\' with it', () => {
    const synthesized = synthesizeWith({ sesMaxSendRate: '100', accountRateLimit: '20' });
    // 4 x 20 + 3 x 100 = 380.
    expect(stageThrottle(synthesized)).toEqual({ ThrottlingRateLimit: 380, ThrottlingBurstLimit: 380 });
    expect(reservedOf(synthesized, 'contacts')).toBe(19);
    // 2 x 2 events a mail x 100 mails a second x 0.02 s, rounded up; its queue's consumers capped at the same.
    expect(reservedOf(synthesized, 'ses-events')).toBe(8);
    expect(sesEventsCap(synthesized)).toEqual({ MaximumConcurrency: 8 });
  });

  test('explicit settings win, and 0 reserves nothing', () => {
    const synthesized = synthesizeWith({
      apiThrottleRate: '1000',
      apiThrottleBurst: '2000',
      httpReservedConcurrency: '0',
      sesEventsReservedConcurrency: '25',
      dispatchReservedConcurrency: 0,
    });
    expect(stageThrottle(synthesized)).toEqual({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 });
    for (const family of httpFamilies) expect(reservedOf(synthesized, family)).toBeUndefined();
    expect(reservedOf(synthesized, 'send-dispatch')).toBeUndefined();
    expect(reservedOf(synthesized, 'ses-events')).toBe(25);
    expect(sesEventsCap(synthesized)).toEqual({ MaximumConcurrency: 25 });
    // Without a reservation, its consumers are still capped at what the SES rate needs.
    const unreserved = synthesizeWith({ sesEventsReservedConcurrency: '0' });
    expect(reservedOf(unreserved, 'ses-events')).toBeUndefined();
    expect(sesEventsCap(unreserved)).toEqual({ MaximumConcurrency: 5 });
  });

  test('refuses at synth reservations the account\'s quota cannot give, naming the settings', () => {
    const app = new App({ builtinCloudFormationValidation: false, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], lambdaConcurrencyQuota: '300' } });
    expect(() => createEmailCampaignStack(app)).toThrow(
      `The stage reserves ${httpFamilies.length * 13 + 16} of the account's Lambda concurrency (httpReservedConcurrency x ${httpFamilies.length} HTTP functions, ` +
        "sesEventsReservedConcurrency, dispatchReservedConcurrency and the step runner's 1), but a quota of 300 (lambdaConcurrencyQuota) allows 200: " +
        'lower them (0 reserves none) or raise the quota',
    );
    const lowered = new App({
      builtinCloudFormationValidation: false,
      context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], lambdaConcurrencyQuota: '300', httpReservedConcurrency: '5' },
    });
    expect(Template.fromStack(createEmailCampaignStack(lowered)).toJSON().Resources).toBeDefined();
  });
});
