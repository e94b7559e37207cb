// Alarms (to an SNS topic, e-mailed when an address is given) and one dashboard: function errors and
// throttles, dead letters, every queue's age, SES reputation, the public links' per-client-address
// limit, and the service's own mail counts.
import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TreatMissingData,
  type IMetric,
  type IWidget,
  MathExpression,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { Construct } from 'constructs';
import { identityQuotaWarningShare, sesIdentityQuota } from '../../shared/identities/identity-count';
import { metricsNamespace, type MetricName } from '../../shared/metrics';
import type { ClientLimitMetrics } from './public-links-api';
import type { QueueName } from '../../shared/queue/queues';
import type { ServiceFunctions } from './service-functions';

/** SES reviews an account at a 5% bounce rate and may pause it at 10%; warn well before. */
export const bounceRateThreshold = 0.04;
/** SES reviews at 0.1% complaints and may pause at 0.5%. */
export const complaintRateThreshold = 0.001;
/** SES identities in the region at which the quota alarm fires: 80% of SES's 10,000. */
export const identityQuotaAlarmThreshold = identityQuotaWarningShare * sesIdentityQuota;
/**
 * A queued message older than this means its consumer has stalled or cannot keep up. Deliveries wait
 * on the SES rate by design (a million recipients at 14 mails a second take 20 hours): they alarm at
 * 2 days, 12 days before the queue's retention would delete them. A webhook delivery waits at most
 * its retry delay before it is received again. SES's events are counted a few seconds after they arrive.
 */
export const queueAgeThresholds: Readonly<Record<QueueName, Duration>> = {
  deliveries: Duration.days(2),
  imports: Duration.minutes(15),
  jobs: Duration.minutes(15),
  webhooks: Duration.hours(1),
  // Counted within seconds (the batching window) when all is well.
  'ses-events': Duration.minutes(15),
};

export interface MonitoringProps {
  stage: string;
  functions: ServiceFunctions;
  api: IHttpApi;
  /** The public links' web ACL and its rate rule. */
  clientLimit: ClientLimitMetrics;
  /** Every queue by name: each alarms when its oldest message waits longer than its threshold. */
  queues: ReadonlyMap<QueueName, IQueue>;
  deliveryQueue: IQueue;
  deadLetterQueues: Record<string, IQueue>;
  /** The delivery stream of SES's delivery events: alarms when a record waits too long for its object. */
  deliveryStream?: IDeliveryStream;
  alarmEmail: string | undefined;
}

/**
 * How old the oldest record of the delivery stream may get before it alarms: the stream writes every
 * 30 s, so 15 minutes means S3 has refused it for many retries (its records are still kept, 24 hours).
 */
export const deliveryStreamFreshnessSeconds = 15 * 60;

export class Monitoring extends Construct {
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    // A customer key, because CloudWatch cannot publish to a topic encrypted with the AWS managed one.
    const topicKey = new Key(this, 'AlarmTopicKey', { enableKeyRotation: true, description: 'Encrypts the alarm topic' });
    topicKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.alarmTopic = new Topic(this, 'AlarmTopic', { displayName: `email-campaign ${props.stage} alarms`, masterKey: topicKey, enforceSSL: true });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.alarmTopic);
    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string, evaluationPeriods = 1) =>
      new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      }).addAlarmAction(action);

    const fiveMinutes = Duration.minutes(5);
    // One alarm a function for both (each alone alarmed at 1 in five minutes, and neither is ever
    // negative, so their sum at 1 alarms exactly when either would): half the alarms, one resource
    // each, under the stack's resource budget (test/infra/resource-count.test.ts).
    for (const [name, fn] of props.functions.byName) {
      const failures = new MathExpression({
        expression: 'errors + throttles',
        usingMetrics: { errors: fn.metricErrors({ period: fiveMinutes }), throttles: fn.metricThrottles({ period: fiveMinutes }) },
        period: fiveMinutes,
        label: `${name} errors and throttles`,
      });
      alarm(`${name}-failures`, failures, 1, `${name} failed (unhandled errors; see its log group) or was throttled by Lambda's concurrency limits`);
    }
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      alarm(`${name}-dead-letters`, queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }), 1, `Messages in the ${name} dead-letter queue need a look (README: dashboards and alarms)`);
    }
    for (const [name, queue] of props.queues) {
      const threshold = queueAgeThresholds[name];
      alarm(
        `${name}-queue-age`,
        queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold.toSeconds(),
        `A message of the ${name} queue waited over ${threshold.toHumanString()}: its consumer stalled or cannot keep up (docs/operations.md: Dashboards and alarms)`,
        2,
      );
    }
    const freshness = props.deliveryStream?.metric('DeliveryToS3.DataFreshness', { period: fiveMinutes, statistic: 'Maximum' });
    if (freshness) {
      alarm(
        'ses-delivery-stream-freshness',
        freshness,
        deliveryStreamFreshnessSeconds,
        'SES delivery events wait in the delivery stream: it cannot write to the archive bucket, and delivered counts lag (docs/operations.md: SES delivery events on S3)',
        2,
      );
    }
    const sesReputation = (name: string) => new Metric({ namespace: 'AWS/SES', metricName: name, period: Duration.hours(1), statistic: 'Maximum' });
    alarm('ses-bounce-rate', sesReputation('Reputation.BounceRate'), bounceRateThreshold, 'SES bounce rate is near the level at which AWS reviews or pauses sending');
    alarm('ses-complaint-rate', sesReputation('Reputation.ComplaintRate'), complaintRateThreshold, 'SES complaint rate is at the level at which AWS reviews sending');

    // Any refusal means one address sent past its limit: a flood, or an image proxy or link scanner
    // whose address many readers share (then raise publicClientLimit).
    const waf = (metricName: string, rule: string) =>
      new Metric({ namespace: 'AWS/WAFV2', metricName, dimensionsMap: { WebACL: props.clientLimit.webAclName, Rule: rule, Region: Aws.REGION }, period: fiveMinutes, statistic: 'Sum' });
    const refusedClients = waf('BlockedRequests', props.clientLimit.ruleMetricName);
    alarm('public-links-client-limit', refusedClients, 1, 'WAF refused a client address past its limit on the public links (docs/operations.md: Rate limits; sampled requests in the WAF console)');

    const serviceMetric = (name: MetricName, statistic = 'Sum') =>
      new Metric({ namespace: metricsNamespace, metricName: name, dimensionsMap: { service: `email-campaign-${props.stage}` }, period: fiveMinutes, statistic });
    // The send watchdog counts each stalled send it resumes and each send it has to end (status 4).
    alarm('sends-stalled', serviceMetric('SendsStalled'), 1, 'A single send stopped progressing and is being resumed (docs/operations.md: stalled sends)');
    alarm('sends-failed', serviceMetric('SendsFailed'), 1, 'A single send could not be resumed and was ended at status 4 (docs/operations.md: stalled sends)');
    // identity-refresh counts the region's identities every 15 minutes; an hour's maximum keeps the
    // alarm on while the count stays high, instead of flapping between counts.
    const hourly = { period: Duration.hours(1) };
    const identitiesInUse = serviceMetric('SesIdentitiesInUse', 'Maximum').with(hourly);
    const tenantLimit = serviceMetric('TenantLimitReached').with(hourly);
    alarm('ses-identity-quota', identitiesInUse, identityQuotaAlarmThreshold, 'SES identities of the region passed 80% of the 10,000 quota (docs/operations.md: SES identities and tenants)');
    alarm('ses-tenant-limit', tenantLimit, 1, 'SES refused a new account tenant: the tenant quota is reached, new accounts send without one (docs/operations.md: SES identities and tenants)');
    const functions = [...props.functions.byName.entries()];
    const widgets: IWidget[] = [
      new GraphWidget({ title: 'Mails', left: [serviceMetric('MailsSent'), serviceMetric('MailsBounced'), serviceMetric('MailsComplained')] }),
      new GraphWidget({ title: 'SES reputation', left: [sesReputation('Reputation.BounceRate'), sesReputation('Reputation.ComplaintRate')] }),
      new GraphWidget({
        title: 'Delivery queue',
        left: [props.deliveryQueue.metricApproximateNumberOfMessagesVisible(), props.deliveryQueue.metricApproximateNumberOfMessagesNotVisible()],
        right: [props.deliveryQueue.metricApproximateAgeOfOldestMessage(), serviceMetric('DeliveryQueueAgeSeconds', 'Maximum')],
      }),
      new GraphWidget({ title: 'Import queue: oldest message waited (s)', left: [serviceMetric('ImportQueueAgeSeconds', 'Maximum')] }),
      ...(freshness ? [new GraphWidget({ title: 'SES delivery stream: oldest record waited (s)', left: [freshness] })] : []),
      new GraphWidget({ title: 'Stalled sends', left: [serviceMetric('SendsStalled'), serviceMetric('SendsFailed')] }),
      new GraphWidget({ title: 'SES identities in use; tenants refused', left: [identitiesInUse], right: [tenantLimit] }),
      new GraphWidget({ title: 'Dead letters', left: Object.values(props.deadLetterQueues).map((queue) => queue.metricApproximateNumberOfMessagesVisible()) }),
      new GraphWidget({
        title: 'API',
        left: [props.api.metricCount({ period: fiveMinutes }), props.api.metricServerError({ period: fiveMinutes }), props.api.metricClientError({ period: fiveMinutes })],
        right: [props.api.metricLatency({ period: fiveMinutes, statistic: 'p99' })],
      }),
      new GraphWidget({ title: 'Public links: requests and refused client addresses', left: [waf('AllowedRequests', 'ALL'), refusedClients] }),
      new GraphWidget({ title: 'Function errors', left: functions.map(([, fn]) => fn.metricErrors({ period: fiveMinutes })) }),
      new GraphWidget({ title: 'Function throttles', left: functions.map(([, fn]) => fn.metricThrottles({ period: fiveMinutes })) }),
      new GraphWidget({ title: 'Function duration p99', left: functions.map(([, fn]) => fn.metricDuration({ period: fiveMinutes, statistic: 'p99' })) }),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `email-campaign-${props.stage}`, widgets: [widgets] });
  }
}
