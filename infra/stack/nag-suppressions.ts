// The cdk-nag AwsSolutions findings this stack accepts, each on the narrowest construct and finding
// with its reason; anything else fails `cdk synth` and test/infra/nag.test.ts.
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { deliveryEventsPrefix } from '../ses-delivery-stream';
import type { IConstruct } from 'constructs';
import type { EventWiring } from './event-wiring';
import { needsOf } from './function-needs';
import type { Platform } from './platform';
import type { PublicLinksApi } from './public-links-api';
import type { ServiceFunctions } from './service-functions';
import type { VerificationTemplate } from './verification-template';

export interface Acknowledgement {
  id: string;
  reason: string;
}

export interface NagScopes {
  functions: ServiceFunctions;
  platform: Platform;
  events: EventWiring;
  /** SES's custom verification template, made by CDK's AwsCustomResource (its singleton Lambda). */
  verificationTemplate?: VerificationTemplate;
  /** The public links' REST API. */
  publicLinks?: PublicLinksApi;
}

/** Every accepted finding, by the construct it is accepted on; the test lists them in the report. */
export function acknowledgements({ functions, platform, events, verificationTemplate, publicLinks }: NagScopes): [IConstruct, Acknowledgement][] {
  const accepted: [IConstruct, Acknowledgement][] = [
    [
      platform.tokenSigningKey,
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'Unsubscribe and preference links already mailed must keep working (RFC 8058, CAN-SPAM), and they are signed ' +
          'with this key, so it is not rotated on a timer; the README runbook rotates it by hand.',
      },
    ],
    [
      platform.webhookSecretKey,
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'Every webhook secret stored in the table is sealed with this key, so a new key must join a key set beside ' +
          'the old one rather than replace it; docs/operations.md rotates it by hand.',
      },
    ],
    [
      events.feedbackDeadLetters,
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: of the SES events rule target and of the feedback function\'s ' +
          'asynchronous invocations; cdk-nag only recognises queues named in another queue\'s redrive policy.',
      },
    ],
    [
      events.scheduledRunDeadLetters,
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter queue: of the scheduler targets\' asynchronous invocations and of the ' +
          'recurring schedule; cdk-nag only recognises queues named in another queue\'s redrive policy.',
      },
    ],
  ];
  for (const [name, fn] of functions.byName) {
    const xray = 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions.';
    // One finding id covers every '*' grant of a role, so its reason names each of them.
    const suppressionList =
      ' SES account-level suppression list: ses:DeleteSuppressedDestination has no resource-level permissions either; ' +
      'granted only to the suppressions function, to clear an address an account takes off its bounce list (shared/mail/suppression-list.ts).';
    const identityCount =
      ' SES identity count: ses:ListEmailIdentities has no resource-level permissions either; granted only to ' +
      'identity-refresh, to watch the region\'s identities against SES\'s quota of 10,000 (shared/identities/identity-count.ts).';
    accepted.push([
      fn.role as IConstruct,
      { id: 'AwsSolutions-IAM5[Resource::*]', reason: xray + (needsOf(name).suppressionList ? suppressionList : '') + (needsOf(name).identityCount ? identityCount : '') },
    ]);
  }
  const anyIdentity = 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]';
  for (const [name, fn] of functions.byName) {
    const needs = needsOf(name);
    if (needs.tenants) {
      const tenantReason =
        'Each account gets its own SES tenant, named at run time from the table and the account id, so no tenant name is ' +
        'known at deploy time; the grant is confined to SES tenants of this account and region (shared/tenants/).';
      accepted.push([fn.role as IConstruct, { id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:tenant/*]', reason: tenantReason }]);
    }
    // One finding id covers every identity/* grant of a role, so its reason names each of them.
    const identityReasons = [
      needs.identities &&
        'Customers register their own sender domains and addresses at run time, so no identity name is known at deploy ' +
          'time; the grant is confined to SES identities of this account and region (shared/identities/ses-identities.ts).',
      needs.tenants === 'manage' &&
        !needs.identities &&
        'ses:CreateTenantResourceAssociation: the customers\' sender identities are associated with their tenant at ' +
          'run time, so no identity name is known at deploy time; confined to SES identities of this account and region.',
      needs.accountMail &&
        'ses:SendEmail of the accounts\' own mail, authorized on the From address\'s identity: the customers\' addresses and ' +
          'domains are SES identities made at run time; confined to SES identities of this account and region.',
    ].filter((reason): reason is string => typeof reason === 'string');
    if (identityReasons.length > 0) accepted.push([fn.role as IConstruct, { id: anyIdentity, reason: identityReasons.join(' ') }]);
  }
  for (const [name, fn] of functions.byName) {
    if (!needsOf(name).schedules) continue;
    accepted.push([
      fn.role as IConstruct,
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${platform.scheduleGroupName}/*]`,
        reason:
          'One-time schedules are named per job at run time (single-send-<account>-<utr>, automation runs); the ARN ' +
          'pattern confines Create/Update/DeleteSchedule to the service\'s own schedule group.',
      },
    ]);
  }
  accepted.push(...deliveryArchiveAcknowledgements({ functions, platform, events }));
  if (verificationTemplate) {
    accepted.push([
      verificationTemplate.providerRole,
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'The role of CDK\'s own AwsCustomResource Lambda, which creates, updates and deletes the SES custom verification ' +
          'template at deploy time only; CDK attaches the basic execution policy to it, and its one inline statement is ' +
          'confined to the template (infra/stack/verification-template.ts).',
      },
    ]);
  }
  if (publicLinks) accepted.push(...publicLinksAcknowledgements(publicLinks));
  return accepted;
}

/** The SES delivery events archive: its bucket, and the two roles that reach objects under its prefix. */
function deliveryArchiveAcknowledgements({ functions, platform, events }: Pick<NagScopes, 'functions' | 'platform' | 'events'>): [IConstruct, Acknowledgement][] {
  const bucket = platform.sesEventArchive;
  const objects = `AwsSolutions-IAM5[Resource::<${Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/${deliveryEventsPrefix}*]`;
  const accepted: [IConstruct, Acknowledgement][] = [
    [
      bucket,
      {
        id: 'AwsSolutions-S1',
        reason:
          'A transient archive of SES delivery events, written only by the stack\'s delivery stream and read only by its ' +
          'feedback function, each object expiring within days; server access logs would need a bucket of their own and ' +
          'record nothing those two roles\' CloudTrail entries and the stream\'s metrics do not.',
      },
    ],
    [
      events.deliveryStream.role,
      {
        id: objects,
        reason:
          'Firehose names each object at delivery time (a UTC date path and a random suffix under the prefix), so the ' +
          'grant is PutObject and AbortMultipartUpload on the stream\'s prefix of the stack\'s archive bucket, and nothing else.',
      },
    ],
  ];
  for (const [name, fn] of functions.byName) {
    if (!needsOf(name).sesEventArchive) continue;
    accepted.push([
      fn.role as IConstruct,
      {
        id: objects,
        reason:
          'The feedback function reads each object S3 announces, named by the delivery stream at run time; the grant is ' +
          'GetObject on the stream\'s prefix of the stack\'s archive bucket, and nothing else.',
      },
    ]);
  }
  return accepted;
}

function publicLinksAcknowledgements(publicLinks: PublicLinksApi): [IConstruct, Acknowledgement][] {
  const accepted: [IConstruct, Acknowledgement][] = [
    [
      publicLinks.api.node.defaultChild as IConstruct,
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Every route is a Lambda proxy to the function that validates it: each link carries a signed token the one ' +
          'request pipeline checks (shared/http/pipeline.ts), as on the HTTP API; API Gateway could only check that a query parameter is present.',
      },
    ],
    [
      publicLinks.api.node.findChild('CloudWatchRole'),
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-level role for REST API logging, which the stage's access log needs; AWS documents this " +
          'managed policy for it, and only API Gateway may assume the role.',
      },
    ],
  ];
  if (publicLinks.stage) {
    accepted.push([
      publicLinks.stage,
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'The stage writes a JSON access log of every request (with WAF\'s verdict) to a log group of the stack; execution ' +
          'logs would go to a log group API Gateway makes outside the stack, kept forever, and repeat what the functions log.',
      },
    ]);
  }
  return accepted;
}

export function justifyFindings(scopes: NagScopes): void {
  for (const [construct, acknowledgement] of acknowledgements(scopes)) Validations.of(construct).acknowledge(acknowledgement);
}
