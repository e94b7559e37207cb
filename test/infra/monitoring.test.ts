// Alarms reach the alarm topic (e-mailed only when alarmEmail is given) for function errors and
// throttles, dead letters, every queue's age and SES reputation; one dashboard shows it all.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { bounceRateThreshold, complaintRateThreshold, identityQuotaAlarmThreshold, queueAgeThresholds } from '../../infra/stack/monitoring';
import { synthesize, type Synthesized } from './support';

interface AlarmProperties {
  MetricName: string;
  Namespace: string;
  Threshold: number;
  Dimensions?: { Name: string; Value: unknown }[];
  /** A metric math alarm's expression and metrics. */
  Metrics?: unknown[];
  EvaluationPeriods?: number;
  AlarmActions: unknown[];
}

describe('monitoring', () => {
  let synthesized: Synthesized;
  let template: Template;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);

  beforeAll(() => {
    synthesized = synthesize();
    template = synthesized.template;
  });

  const alarms = (): AlarmProperties[] =>
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => (alarm as { Properties: AlarmProperties }).Properties);

  const alarmsOn = (metricName: string, dimensionValue?: unknown) =>
    alarms().filter(
      (alarm) => alarm.MetricName === metricName && (dimensionValue === undefined || JSON.stringify(alarm.Dimensions ?? []).includes(JSON.stringify(dimensionValue))),
    );

  test('every alarm notifies the alarm topic', () => {
    const topicArn = resolve(synthesized.stack.monitoring.alarmTopic.topicArn);
    expect(alarms().length).toBeGreaterThan(0);
    for (const alarm of alarms()) expect(alarm.AlarmActions).toEqual([topicArn]);
  });

  test('the alarm topic is encrypted with a rotated key CloudWatch may use, and has no subscriber without alarmEmail', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  test('each function alarms on errors and on throttles: one alarm on their sum, at 1 in five minutes', () => {
    for (const fn of synthesized.stack.functions.byName.values()) {
      const name = resolve(fn.functionName);
      const onFunction = alarms().filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes(JSON.stringify(name)));
      expect(onFunction).toHaveLength(1);
      const metrics = JSON.stringify(onFunction[0]?.Metrics);
      expect(metrics).toContain('"MetricName":"Errors"');
      expect(metrics).toContain('"MetricName":"Throttles"');
      expect(metrics).toContain('errors + throttles');
      expect(onFunction[0]).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    }
  });

  test('every dead-letter queue alarms on its first message', () => {
    const depth = alarmsOn('ApproximateNumberOfMessagesVisible');
    const queues = [
      ...[...synthesized.stack.platform.queues.values()].map((pair) => pair.deadLetters),
      synthesized.stack.events.feedbackDeadLetters,
      synthesized.stack.events.scheduledRunDeadLetters,
    ];
    expect(depth).toHaveLength(queues.length);
    for (const queue of queues) {
      const [alarm] = alarmsOn('ApproximateNumberOfMessagesVisible', resolve(queue.queueName));
      expect(alarm?.Threshold).toBe(1);
    }
  });

  test('every queue alarms when its oldest message waits past its own threshold', () => {
    const queues = [...synthesized.stack.platform.queues];
    expect(alarmsOn('ApproximateAgeOfOldestMessage')).toHaveLength(queues.length);
    for (const [name, { queue }] of queues) {
      const [alarm] = alarmsOn('ApproximateAgeOfOldestMessage', resolve(queue.queueName));
      expect(alarm?.Threshold).toBe(queueAgeThresholds[name].toSeconds());
    }
  });

  test('SES bounce and complaint rates alarm below the levels at which AWS reviews the account', () => {
    expect(alarmsOn('Reputation.BounceRate')).toEqual([expect.objectContaining({ Namespace: 'AWS/SES', Threshold: bounceRateThreshold })]);
    expect(alarmsOn('Reputation.ComplaintRate')).toEqual([expect.objectContaining({ Namespace: 'AWS/SES', Threshold: complaintRateThreshold })]);
    expect(bounceRateThreshold).toBeLessThan(0.05);
    expect(complaintRateThreshold).toBeLessThanOrEqual(0.001);
  });

  test('stalled and failed sends alarm on the first one, from the watchdog\'s metrics', () => {
    for (const metric of ['SendsStalled', 'SendsFailed']) {
      const [alarm, ...others] = alarmsOn(metric);
      expect(others).toEqual([]);
      expect(alarm).toMatchObject({ Namespace: 'EmailCampaign', Threshold: 1, Dimensions: [{ Name: 'service', Value: 'email-campaign-dev' }] });
    }
  });

  test("SES's quotas alarm: identities in use at 80% of the region's 10,000, and the first tenant SES refuses", () => {
    expect([alarmsOn('SesIdentitiesInUse'), alarmsOn('TenantLimitReached')]).toEqual([
      [expect.objectContaining({ Namespace: 'EmailCampaign', Statistic: 'Maximum', Period: 3600, Threshold: 8000, Dimensions: [{ Name: 'service', Value: 'email-campaign-dev' }] })],
      [expect.objectContaining({ Namespace: 'EmailCampaign', Statistic: 'Sum', Period: 3600, Threshold: 1, Dimensions: [{ Name: 'service', Value: 'email-campaign-dev' }] })],
    ]);
    expect(identityQuotaAlarmThreshold).toBe(8000);
  });

  test('one dashboard shows mails, SES reputation, the queues, the API and the functions', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]);
    for (const title of ['Mails', 'SES reputation', 'Delivery queue', 'Dead letters', 'API', 'Function errors']) expect(body).toContain(`\\"title\\":\\"${title}\\"`);
    for (const metric of ['MailsSent', 'MailsBounced', 'MailsComplained', 'DeliveryQueueAgeSeconds', 'ImportQueueAgeSeconds', 'SendsStalled', 'SendsFailed', 'SesIdentitiesInUse', 'TenantLimitReached']) expect(body).toContain(metric);
  });
});
