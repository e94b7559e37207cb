// Every Lambda of the service: one per HTTP family and one per event function, each with the
// environment and the IAM permissions its needs (function-needs.ts) call for, and nothing more.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ArnFormat, Duration, Stack, Stage } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { queueConsumers, queueNames, queueUrlEnvName, type QueueName } from '../../shared/queue/queues';
import { httpFamilies } from '../../shared/routes';
import { scheduleTargetArnEnvName } from '../../shared/scheduling/aws-scheduler';
import { eventTargets, type EventTarget } from '../../shared/scheduling/scheduled-job';
import { metricsNamespace } from '../../shared/metrics';
import { tokenSigningKeySecretArnEnvName, webhookSecretKeySecretArnEnvName } from '../../shared/secrets';
import { stepRunnerReservation } from './concurrency';
import { needsOf, type FunctionNeeds } from './function-needs';
import { bundledFunction, repositoryHandlers, type HandlerSource } from './lambda-bundling';
import { maxReceiveCount, type Platform } from './platform';
import { tracingLayer } from './tracing-layer';
import { senderVerificationTemplateName, verificationTemplateArn } from './verification-template';
import { apiDocsDirectoryName, writeApiDocsFiles } from '../openapi/api-docs-files';
import { functionTimeoutSeconds } from '../function-timeouts';
import { deliveryEventsPrefix } from '../ses-delivery-stream';

/** The HTTP family that serves the API docs (its files are packaged beside its code). */
export const apiDocsFamily = 'api-docs';

/** The function that receives the SES configuration set's events. */
export const sesEventsFunction = 'ses-events';

/** The periodic check of pending SES identities (an EventBridge rule's target). */
export const identityRefreshFunction = 'identity-refresh';

/** The automation step runner: it sends mail at the per-container rate, one container at a time. */
export const automationStepsFunction = 'automation-steps';

/** The scheduler target that fans a single send out to the delivery queue. */
export const dispatchFunction = 'send-dispatch';

interface FunctionShape {
  timeout: Duration;
  memorySize: number;
  description: string;
}

const httpShape = (family: string): FunctionShape => ({ timeout: Duration.seconds(functionTimeoutSeconds(family)), memorySize: 512, description: `HTTP API: ${family}` });

/** Event functions by name, with their memory (their timeouts: ../function-timeouts.ts). */
const eventShapes: Readonly<Record<string, Omit<FunctionShape, 'timeout'>>> = {
  [dispatchFunction]: { memorySize: 512, description: 'Scheduler target: fans a single send out to the delivery queue' },
  'send-deliver': { memorySize: 512, description: 'Delivery queue consumer: renders and sends mail through SES' },
  [sesEventsFunction]: { memorySize: 256, description: 'SES configuration-set events: statistics and suppressions' },
  [automationStepsFunction]: { memorySize: 512, description: 'Scheduler target: runs due automation steps' },
  [identityRefreshFunction]: { memorySize: 256, description: 'EventBridge rule target: refreshes pending SES sender identities' },
  'send-watchdog': { memorySize: 256, description: 'Scheduler target: resumes stalled single sends, ends those that cannot be' },
  'segment-windows': { memorySize: 256, description: 'Scheduler target: starts the daily slide of an account\'s engagement segment windows' },
  'opt-in-mail': { memorySize: 256, description: 'Scheduler target: mails an account\'s double opt-in confirmation mails' },
  // Parses CSV chunks: more memory buys CPU.
  'contact-import': { memorySize: 1024, description: 'Import queue consumer: runs contact CSV import jobs' },
  'webhook-deliver': { memorySize: 256, description: 'Webhook queue consumer: POSTs signed events to the accounts\' webhooks' },
};

const shapeOf = (name: string): FunctionShape => ({
  timeout: Duration.seconds(functionTimeoutSeconds(name)),
  ...(eventShapes[name] ?? { memorySize: 512, description: `Queue consumer: ${name}` }),
});

/** A function's memory in MB as deployed (the bench prices its invocations by it). */
export function functionMemoryMb(name: string): number {
  return shapeOf(name).memorySize;
}

/** The queue the deliverer consumes; its consumer's rate is held under the SES quota. */
export const deliveryQueue: QueueName = 'deliveries';

/**
 * The table items a function may touch: the item actions its needs name on the table, and Query on
 * the indexes it queries (an index serves nothing else). No Scan, no table management.
 */
function tableAccess(table: ITable, needs: FunctionNeeds): PolicyStatement[] {
  const statements: PolicyStatement[] = [];
  const actions = needs.table ?? [];
  if (actions.length > 0) statements.push(new PolicyStatement({ actions: actions.map((action) => `dynamodb:${action}`), resources: [table.tableArn] }));
  const indexes = needs.indexes ?? [];
  if (indexes.length > 0) {
    if (!actions.includes('Query')) throw new Error('A function that queries an index needs Query among its table actions');
    statements.push(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes.map((index) => `${table.tableArn}/index/${index}`) }));
  }
  return statements;
}

/**
 * A function that sends the accounts' own mail may send from any SES identity of the account, so IAM
 * itself refuses it a From address in the service's own domain or its subdomains, whatever the
 * service's rules let an account save: the service's domain stays the service's. SES matches
 * ses:FromAddress case-sensitively, so the service's own sender rules remain the first guard. A
 * function that also sends system mail (send-deliver: send summaries) keeps exactly the system From
 * address: conditions of one statement must all hold for the deny to apply.
 */
function serviceDomainFromDeny(props: Pick<ServiceFunctionsProps, 'senderDomain' | 'systemFromEmail'>, needs: FunctionNeeds): PolicyStatement {
  return new PolicyStatement({
    effect: Effect.DENY,
    actions: ['ses:SendEmail', 'ses:SendRawEmail'],
    resources: ['*'],
    conditions: {
      StringLike: { 'ses:FromAddress': [`*@${props.senderDomain}`, `*@*.${props.senderDomain}`] },
      ...(needs.systemMail ? { StringNotEquals: { 'ses:FromAddress': props.systemFromEmail } } : {}),
    },
  });
}

/** Reserve `count` of the account's concurrency for `fn`; 0 leaves it unreserved (a reservation of 0 would stop it). */
function reserve(fn: NodejsFunction, count: number): void {
  if (count > 0) (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
}

export const consumerTimeout = (queue: QueueName): Duration => shapeOf(queueConsumers[queue]).timeout;

export interface ServiceFunctionsProps {
  stage: string;
  table: ITable;
  platform: Platform;
  /** The API root as clients see it (ending in `/api/`), for links the functions put in responses and mail. */
  publicBaseUrl: string;
  systemFromEmail: string;
  /**
   * The service's own sender domain: the accounts' mail may never be From an address in it, and the
   * functions that register identities refuse it (and its subdomains) to every account.
   */
  senderDomain: string;
  /** Mails per second one delivery container may send (the SES quota shared by the containers). */
  perContainerSendRate: number;
  /** Reserved concurrency (0: none) of each HTTP function, of ses-events and of the dispatcher. */
  reservedConcurrency: { http: number; sesEvents: number; dispatch: number };
  logRetention: RetentionDays;
  allowDestroy: boolean;
  handlerSource?: HandlerSource;
}

/** The event functions the stack deploys: the scheduler targets, the SES feedback function and every queue's consumer. */
export function eventFunctionNames(): string[] {
  return [...new Set([...Object.keys(eventShapes), ...queueNames.map((queue) => queueConsumers[queue])])];
}

export class ServiceFunctions extends Construct {
  readonly byName: ReadonlyMap<string, NodejsFunction>;
  readonly eventFunctionNames: readonly string[];
  /** The scheduler targets deployed (a subset of `eventTargets`). */
  readonly scheduleTargets: readonly EventTarget[];

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    const source = props.handlerSource ?? repositoryHandlers;
    this.eventFunctionNames = eventFunctionNames();
    this.scheduleTargets = [...eventTargets];
    // A missing handler is a broken checkout, not an optional feature: refuse to synthesize.
    for (const name of this.eventFunctionNames) {
      if (!existsSync(source.entryFor(name))) throw new Error(`No handler for event function ${name} at ${source.entryFor(name)}`);
    }
    const stack = Stack.of(this);
    // Scheduler targets get fixed names, so their ARNs are known without a reference to the function
    // (send-dispatch schedules itself: a reference to its own ARN would be a circular dependency).
    const targetName = (target: EventTarget) => `email-campaign-${props.stage}-${target}`;
    const targetArn = (target: EventTarget) => stack.formatArn({ service: 'lambda', resource: 'function', resourceName: targetName(target), arnFormat: ArnFormat.COLON_RESOURCE_NAME });

    // One layer version for all functions: the X-Ray SDK their bundles leave out (lambda-bundling.ts).
    const tracing = tracingLayer(this, 'TracingLayer');
    const byName = new Map<string, NodejsFunction>();
    const create = (name: string, shape: FunctionShape) => {
      const fn = bundledFunction(this, {
        name,
        source,
        ...shape,
        tracingLayer: tracing,
        functionName: (eventTargets as readonly string[]).includes(name) ? targetName(name as EventTarget) : undefined,
        environment: {
          TABLE_NAME: props.table.tableName,
          APP_RUNTIME: 'aws',
          PUBLIC_BASE_URL: props.publicBaseUrl,
          POWERTOOLS_SERVICE_NAME: `email-campaign-${props.stage}`,
          POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        },
        logRetention: props.logRetention,
        allowDestroy: props.allowDestroy,
        // The API docs function serves the OpenAPI document and its viewer as files beside its code.
        ...(name === apiDocsFamily
          ? { files: { directory: writeApiDocsFiles(join(Stage.of(this)?.outdir ?? '.', 'api-docs-files')), into: apiDocsDirectoryName } }
          : {}),
      });
      for (const statement of tableAccess(props.table, needsOf(name))) fn.addToRolePolicy(statement);
      this.grantNeeds(name, fn, props, targetArn);
      byName.set(name, fn);
    };
    for (const family of httpFamilies) create(family, httpShape(family));
    for (const name of this.eventFunctionNames) create(name, shapeOf(name));
    this.byName = byName;

    const deliverer = this.functionOf(queueConsumers[deliveryQueue]);
    deliverer.addEnvironment('SES_MAX_SEND_RATE', String(props.perContainerSendRate));
    deliverer.addEnvironment('DELIVERY_MAX_RECEIVES', String(maxReceiveCount));
    const stepRunner = byName.get(automationStepsFunction);
    if (stepRunner) {
      stepRunner.addEnvironment('SES_MAX_SEND_RATE', String(props.perContainerSendRate));
      // One run at a time: its share of the SES rate is one container's, and runs must not overlap.
      reserve(stepRunner, stepRunnerReservation);
    }
    // A share of the account that no queue consumer or other stage can take from them (0 reserves none).
    const { reservedConcurrency } = props;
    for (const family of httpFamilies) reserve(this.functionOf(family), reservedConcurrency.http);
    reserve(this.functionOf(sesEventsFunction), reservedConcurrency.sesEvents);
    reserve(this.functionOf(dispatchFunction), reservedConcurrency.dispatch);
  }

  /** The account tenants (shared/tenants/): named per account, so the grant is on the stack's region and AWS account's tenants. */
  private grantTenants(fn: NodejsFunction, level: 'manage' | 'read' | 'send', configurationSetArn: string): void {
    // Sending under a tenant is granted with the mail itself (SendEmail on the tenants too).
    if (level === 'send') return;
    const stack = Stack.of(this);
    const tenantArn = stack.formatArn({ service: 'ses', resource: 'tenant', resourceName: '*' });
    fn.addToRolePolicy(new PolicyStatement({ actions: level === 'manage' ? ['ses:CreateTenant', 'ses:GetTenant'] : ['ses:GetTenant'], resources: [tenantArn] }));
    if (level === 'manage') {
      fn.addToRolePolicy(
        new PolicyStatement({
          // An association names the tenant and the resource: the configuration set and the customers' identities.
          actions: ['ses:CreateTenantResourceAssociation'],
          resources: [tenantArn, configurationSetArn, stack.formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        }),
      );
    }
  }

  private grantNeeds(name: string, fn: NodejsFunction, props: ServiceFunctionsProps, targetArn: (target: EventTarget) => string): void {
    const needs = needsOf(name);
    const { platform } = props;
    if (needs.mail) {
      fn.addEnvironment('SES_CONFIGURATION_SET', platform.configurationSetName);
      fn.addToRolePolicy(
        new PolicyStatement({
          // SES v2 SendEmail with simple content (shared/mail/mailer.ts) is authorized as ses:SendEmail;
          // ses:SendRawEmail would only be needed for raw MIME content, which nothing sends.
          actions: ['ses:SendEmail'],
          // SendEmail is authorized on the From address's identity: the service's own domain for system
          // mail; for the accounts' own mail, any identity of this account and region (their addresses
          // and domains are made at run time; the service's rules decide which one an account may use).
          // A mail sent with TenantName (shared/tenants/) is authorized on the tenant too.
          resources: [
            needs.accountMail ? Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }) : platform.senderIdentity.emailIdentityArn,
            platform.configurationSetArn,
            ...(needs.tenants ? [Stack.of(this).formatArn({ service: 'ses', resource: 'tenant', resourceName: '*' })] : []),
          ],
        }),
      );
    }
    if (needs.accountMail) fn.addToRolePolicy(serviceDomainFromDeny(props, needs));
    if (needs.systemMail) fn.addEnvironment('SYSTEM_FROM_EMAIL', props.systemFromEmail);
    if (needs.tenants) this.grantTenants(fn, needs.tenants, platform.configurationSetArn);
    if (needs.identities) {
      const identities = Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
      fn.addToRolePolicy(
        new PolicyStatement({
          // The customers' own addresses and domains (shared/identities/ses-identities.ts): any name, so
          // the grant is on every identity of this account and region, and on nothing else of SES.
          actions: ['ses:CreateEmailIdentity', 'ses:DeleteEmailIdentity', 'ses:GetEmailIdentity'],
          resources: [identities],
        }),
      );
      fn.addEnvironment('SENDER_DOMAIN', props.senderDomain);
      // SendCustomVerificationEmail names the address's identity and our template (the stack makes it:
      // verification-template.ts), so the mail can only ever be ours.
      const templateName = senderVerificationTemplateName(props.stage);
      fn.addEnvironment('SENDER_VERIFICATION_TEMPLATE', templateName);
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendCustomVerificationEmail'],
          resources: [identities, verificationTemplateArn(Stack.of(this), templateName)],
        }),
      );
    }
    if (needs.identityCount) {
      fn.addToRolePolicy(
        new PolicyStatement({
          // The region's identities counted against SES's quota; the action has no resource-level
          // permissions, so IAM accepts only '*' (acknowledged in nag-suppressions.ts).
          actions: ['ses:ListEmailIdentities'],
          resources: ['*'],
        }),
      );
    }
    if (needs.suppressionList) {
      fn.addToRolePolicy(
        new PolicyStatement({
          // SES's account-level suppression list (shared/mail/suppression-list.ts). The action has no
          // resource-level permissions, so IAM accepts only '*' (acknowledged in nag-suppressions.ts).
          actions: ['ses:DeleteSuppressedDestination'],
          resources: ['*'],
        }),
      );
    }
    // Functions sign or verify something (list cursors, links in mail): the key's ARN, never the key.
    if (needs.signingKey !== false) {
      fn.addEnvironment(tokenSigningKeySecretArnEnvName, platform.tokenSigningKey.secretArn);
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [platform.tokenSigningKey.secretArn] }));
    }
    if (needs.webhookKey) {
      fn.addEnvironment(webhookSecretKeySecretArnEnvName, platform.webhookSecretKey.secretArn);
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [platform.webhookSecretKey.secretArn] }));
    }
    if (needs.schedules) {
      fn.addEnvironment('SCHEDULE_GROUP_NAME', platform.scheduleGroupName);
      fn.addEnvironment('SCHEDULER_ROLE_ARN', platform.schedulerRole.roleArn);
      for (const target of eventTargets) fn.addEnvironment(scheduleTargetArnEnvName(target), targetArn(target));
      if (needs.cancelsSchedules && !needs.schedules) throw new Error(`${name} cancels schedules but does not schedule`);
      fn.addToRolePolicy(
        new PolicyStatement({
          // DeleteSchedule only for the code that cancels a job: the anonymous public pages, say, only book them.
          actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', ...(needs.cancelsSchedules ? ['scheduler:DeleteSchedule'] : [])],
          resources: [Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${platform.scheduleGroupName}/*` })],
        }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [platform.schedulerRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      );
    }
    // Jobs started at once (shared/scheduling/start-now.ts) invoke their targets, by the ARNs the scheduler's variables hold.
    if (needs.startsNow?.length) fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: needs.startsNow.map(targetArn) }));
    if (needs.sesEventArchive) {
      // The archive's objects, by the name S3's event gives: only under the stream's prefix, read only.
      fn.addEnvironment('SES_EVENT_BUCKET', platform.sesEventArchive.bucketName);
      fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [platform.sesEventArchive.arnForObjects(`${deliveryEventsPrefix}*`)] }));
    }
    for (const queue of needs.enqueue ?? []) {
      const { queue: target } = platform.queueOf(queue);
      fn.addEnvironment(queueUrlEnvName(queue), target.queueUrl);
      fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [target.queueArn] }));
    }
  }

  functionOf(name: string): NodejsFunction {
    const fn = this.byName.get(name);
    if (!fn) throw new Error(`No function ${name}`);
    return fn;
  }
}
