// Custom CloudWatch metrics as Embedded Metric Format log lines (Powertools Metrics): no API call on
// the hot path; CloudWatch extracts them from the function's log group. Locally they are not written.
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { config, optionalEnv } from './config';

/** The namespace the dashboard and alarms read; the stack passes it as POWERTOOLS_METRICS_NAMESPACE. */
export const metricsNamespace = 'EmailCampaign';

export type MetricName = 'MailsSent' | 'MailsBounced' | 'MailsComplained' | 'DeliveryQueueAgeSeconds' | 'ImportQueueAgeSeconds' | 'JobQueueAgeSeconds' | 'SendsStalled' | 'SendsFailed' | 'SesIdentitiesInUse' | 'TenantLimitReached';

const units: Record<MetricName, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  MailsSent: MetricUnit.Count,
  MailsBounced: MetricUnit.Count,
  MailsComplained: MetricUnit.Count,
  DeliveryQueueAgeSeconds: MetricUnit.Seconds,
  ImportQueueAgeSeconds: MetricUnit.Seconds,
  JobQueueAgeSeconds: MetricUnit.Seconds,
  SendsStalled: MetricUnit.Count,
  SendsFailed: MetricUnit.Count,
  SesIdentitiesInUse: MetricUnit.Count,
  TenantLimitReached: MetricUnit.Count,
};

let metrics: Metrics | undefined;

function recorder(): Metrics {
  metrics ??= new Metrics({ namespace: optionalEnv('POWERTOOLS_METRICS_NAMESPACE') ?? metricsNamespace, serviceName: optionalEnv('POWERTOOLS_SERVICE_NAME') ?? 'email-campaign' });
  return metrics;
}

const enabled = () => config().runtime === 'aws';

/** Add a data point (a count, or a duration in seconds) to a metric of this invocation; written by `flushMetrics`. */
export function countMetric(name: MetricName, value = 1): void {
  if (!enabled() || value === 0) return;
  recorder().addMetric(name, units[name], value);
}

/** Write the invocation's metrics (one EMF line); call once at the end of a handler, also on failure. */
export function flushMetrics(): void {
  if (!enabled() || !metrics?.hasStoredMetrics()) return;
  metrics.publishStoredMetrics();
}
