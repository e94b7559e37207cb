// The one stack: the table, the HTTP API built from the routing table and the public links' REST API
// behind a per-client-address limit (public-links-api.ts), one function per family and
// per event function, the queues, the scheduler, SES, the signing key's secret, alarms and a dashboard.
import { CfnOutput, Stack, Tags, type App, type StackProps } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { createDataTable } from './data-table';
import { EventWiring } from './event-wiring';
import { createHttpApi } from './http-api';
import type { HandlerSource } from './lambda-bundling';
import { Monitoring } from './monitoring';
import { justifyFindings } from './nag-suppressions';
import { Platform } from './platform';
import { PublicLinksApi } from './public-links-api';
import { consumerTimeout, deliveryQueue, ServiceFunctions } from './service-functions';
import { needsOf } from './function-needs';
import { checkReservations, readSettings, type StackSettings } from './settings';
import { sesEventsConsumersFor } from './concurrency';
import { VerificationTemplate } from './verification-template';
import { httpFamilies } from '../../shared/routes';

export interface EmailCampaignStackProps extends StackProps {
  settings: StackSettings;
  handlerSource?: HandlerSource;
}

// Other senders (sender confirmations, send summaries) share the quota without the deliverers'
// limiter, so the deliverers together take 90% of it.
const deliveryShareOfSendRate = 0.9;

/** Mails per second for each delivery container, so all of them together stay under the SES rate. */
export function perContainerSendRate(sesMaxSendRate: number, deliveryConcurrency: number): number {
  return Math.floor(((sesMaxSendRate * deliveryShareOfSendRate) / deliveryConcurrency) * 100) / 100;
}

/** Containers that send campaign mail at once: the deliverers, plus the one automation step runner. */
export function mailSendingContainers(deliveryConcurrency: number): number {
  return deliveryConcurrency + 1;
}

export class EmailCampaignStack extends Stack {
  readonly settings: StackSettings;
  readonly table: Table;
  readonly httpApi: IHttpApi;
  readonly publicLinks: PublicLinksApi;
  readonly platform: Platform;
  readonly functions: ServiceFunctions;
  readonly events: EventWiring;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: EmailCampaignStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    checkReservations(settings, httpFamilies.length);
    const tags = { service: 'email-campaign', stage: settings.stage };
    // CloudFormation takes no Tags beside the HTTP API's Body: the API carries them in it (http-api.ts).
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value, { excludeResourceTypes: ['AWS::ApiGatewayV2::Api'] });

    this.table = createDataTable(this, { allowDestroy: settings.allowDestroy });
    // The API exists before the functions so they can know its URL; only the routes depend on the functions.
    const httpApi = createHttpApi(this, {
      stage: settings.stage,
      throttle: settings.apiThrottle,
      oldLinkThrottle: settings.oldLinkThrottle,
      logRetention: settings.logRetention,
      allowDestroy: settings.allowDestroy,
      corsOrigins: settings.corsOrigins,
      tags,
    });
    const { api, baseUrl } = httpApi;
    this.httpApi = api;
    // Links the functions build (mail, SES's verification mail) lead here, behind the per-client-address limit.
    this.publicLinks = new PublicLinksApi(this, 'PublicLinks', {
      stage: settings.stage,
      throttle: settings.apiThrottle,
      clientLimit: settings.publicClientLimit,
      logRetention: settings.logRetention,
      allowDestroy: settings.allowDestroy,
    });
    const linksBaseUrl = this.publicLinks.baseUrl;
    this.platform = new Platform(this, 'Platform', {
      stage: settings.stage,
      senderDomain: settings.senderDomain,
      consumerTimeout,
      allowDestroy: settings.allowDestroy,
    });
    this.functions = new ServiceFunctions(this, 'Functions', {
      stage: settings.stage,
      table: this.table,
      platform: this.platform,
      publicBaseUrl: linksBaseUrl,
      systemFromEmail: settings.systemFromEmail,
      senderDomain: settings.senderDomain,
      // The deliverers and the automation step runner (one container at most) share the SES rate.
      perContainerSendRate: perContainerSendRate(settings.sesMaxSendRate, mailSendingContainers(settings.deliveryConcurrency)),
      reservedConcurrency: settings.reservedConcurrency,
      logRetention: settings.logRetention,
      allowDestroy: settings.allowDestroy,
      handlerSource: props.handlerSource,
    });
    // SES's branded verification mail of sender addresses (the functions know it by its name).
    const verificationTemplate = new VerificationTemplate(this, 'SenderVerificationTemplate', {
      stage: settings.stage,
      systemFromEmail: settings.systemFromEmail,
      publicBaseUrl: linksBaseUrl,
      logRetention: settings.logRetention,
      allowDestroy: settings.allowDestroy,
    });
    httpApi.serve((family) => this.functions.functionOf(family));
    this.publicLinks.serve((family) => this.functions.functionOf(family));
    // The stage's share of SES's control-plane rate, for every function that calls it (shared/rate-limits/ses-control.ts).
    if (settings.sesControlRate !== undefined) {
      for (const [name, fn] of this.functions.byName) {
        const needs = needsOf(name);
        if (needs.identities || needs.identityCount || needs.tenants === 'manage' || needs.tenants === 'read') fn.addEnvironment('SES_CONTROL_RATE', String(settings.sesControlRate));
      }
    }
    // The request limits the HTTP functions enforce (shared/rate-limits/); unset, their defaults apply.
    for (const family of httpFamilies) {
      const fn = this.functions.functionOf(family);
      if (settings.accountRateLimit !== undefined) fn.addEnvironment('ACCOUNT_RATE_LIMIT', String(settings.accountRateLimit));
      if (settings.publicRateLimit !== undefined) fn.addEnvironment('PUBLIC_RATE_LIMIT', String(settings.publicRateLimit));
    }
    // The limits past which a send pauses itself, read where bounces and complaints are counted.
    const reputationJudge = this.functions.functionOf('ses-events');
    if (settings.bouncePauseRate !== undefined) reputationJudge.addEnvironment('BOUNCE_PAUSE_RATE', String(settings.bouncePauseRate));
    if (settings.complaintPauseRate !== undefined) reputationJudge.addEnvironment('COMPLAINT_PAUSE_RATE', String(settings.complaintPauseRate));
    if (settings.pauseMinDeliveries !== undefined) reputationJudge.addEnvironment('PAUSE_MIN_DELIVERIES', String(settings.pauseMinDeliveries));
    this.events = new EventWiring(this, 'Events', {
      platform: this.platform,
      functions: this.functions,
      deliveryConcurrency: settings.deliveryConcurrency,
      sesEventsConcurrency: sesEventsConsumersFor(settings.reservedConcurrency.sesEvents, settings.sesMaxSendRate),
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: settings.stage,
      functions: this.functions,
      api,
      clientLimit: this.publicLinks.metrics,
      queues: new Map([...this.platform.queues].map(([name, pair]) => [name, pair.queue])),
      deliveryQueue: this.platform.queueOf(deliveryQueue).queue,
      deadLetterQueues: {
        ...Object.fromEntries([...this.platform.queues].map(([name, pair]) => [name, pair.deadLetters])),
        feedback: this.events.feedbackDeadLetters,
        'scheduled-runs': this.events.scheduledRunDeadLetters,
      },
      deliveryStream: this.events.deliveryStream.stream,
      alarmEmail: settings.alarmEmail,
    });
    justifyFindings({ functions: this.functions, platform: this.platform, events: this.events, verificationTemplate, publicLinks: this.publicLinks });

    new CfnOutput(this, 'ApiBaseUrl', { value: baseUrl, description: 'The API root; every route is below it.' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'PublicPagesBaseUrl', { value: `${linksBaseUrl}public/`, description: 'Where links in mail lead (preferences, unsubscribe, open pixel), behind the per-client-address limit.' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.alarmTopic.topicArn });
    new CfnOutput(this, 'TokenSigningKeySecretArn', { value: this.platform.tokenSigningKey.secretArn, description: 'The ARN only; the key never leaves Secrets Manager.' });
    new CfnOutput(this, 'WebhookSecretKeySecretArn', { value: this.platform.webhookSecretKey.secretArn, description: 'The ARN only; the key never leaves Secrets Manager.' });
    new CfnOutput(this, 'SenderDomainIdentity', { value: settings.senderDomain, description: 'Publish its DKIM records (SES console) to verify it.' });
  }
}

/** The stack as `cdk synth` builds it: settings from the app's context, named after the stage. */
export function createEmailCampaignStack(app: App, handlerSource?: HandlerSource): EmailCampaignStack {
  const settings = readSettings(app.node);
  // No `env`: the template is environment-agnostic and deploys to whatever account and region the CLI
  // is given, and nothing at synth time looks anything up in an account.
  return new EmailCampaignStack(app, `email-campaign-${settings.stage}`, {
    settings,
    handlerSource,
    description: `Email campaign service (${settings.stage})`,
  });
}
