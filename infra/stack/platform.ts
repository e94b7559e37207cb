// What the functions use besides the table: the queues (each with a dead-letter queue), the
// scheduler group and the role schedules run as, SES (the sender domain's identity and the
// configuration set whose events come back), the bucket its delivery events are archived in, the
// token-signing key's secret, and the secret of the key webhook secrets are sealed with.
import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { ConfigurationSet, EmailIdentity, Identity, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { maxReceiveCount, maxReceiveCountOf, queueNames, type QueueName } from '../../shared/queue/queues';
import { constructId } from './lambda-bundling';
import { createSesEventArchive } from './ses-delivery-archive';

export { maxReceiveCount };

/**
 * How long a queue keeps a message. The delivery queue keeps SQS's maximum: a backlog of recipients
 * waiting on the SES rate must never be deleted unsent (it alarms at 2 days, monitoring.ts). So does
 * the SES events queue: SES publishes an event once, and a lost one is a hard bounce never
 * suppressed or a delivery never counted. The others alarm within the hour, and keep 4 days so a
 * message that dead-letters still has 10 of the dead-letter queue's 14 (SQS counts both from the
 * first enqueue).
 */
export function queueRetention(queue: QueueName): Duration {
  return queue === 'deliveries' || queue === 'ses-events' ? Duration.days(14) : Duration.days(4);
}

export interface PlatformProps {
  stage: string;
  senderDomain: string;
  /** Longest run of each queue's consumer; the queue hides a received message six times as long. */
  consumerTimeout: (queue: QueueName) => Duration;
  /** A stage that may be destroyed takes its archive bucket with it. */
  allowDestroy: boolean;
}

export interface QueuePair {
  queue: Queue;
  deadLetters: Queue;
}

export class Platform extends Construct {
  readonly queues: ReadonlyMap<QueueName, QueuePair>;
  readonly scheduleGroupName: string;
  readonly scheduleGroup: CfnScheduleGroup;
  /** The role EventBridge Scheduler invokes targets as; it may invoke the scheduler targets only. */
  readonly schedulerRole: Role;
  readonly configurationSet: ConfigurationSet;
  readonly configurationSetName: string;
  readonly configurationSetArn: string;
  readonly senderIdentity: EmailIdentity;
  /** Where the delivery stream archives SES's delivery events (ses-delivery-archive.ts); ses-events reads its objects. */
  readonly sesEventArchive: Bucket;
  readonly tokenSigningKey: Secret;
  /** Seals the webhooks' signing secrets in the table; only the functions that seal and open them read it. */
  readonly webhookSecretKey: Secret;

  constructor(scope: Construct, id: string, props: PlatformProps) {
    super(scope, id);
    const queues = new Map<QueueName, QueuePair>();
    for (const name of queueNames) {
      const queueId = constructId(name);
      const deadLetters = new Queue(this, `${queueId}DeadLetters`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const queue = new Queue(this, `${queueId}Queue`, {
        // AWS's advice for Lambda consumers: at least six times the function timeout, so a message
        // is not handed to a second container while the first still works on it.
        visibilityTimeout: Duration.seconds(props.consumerTimeout(name).toSeconds() * 6),
        retentionPeriod: queueRetention(name),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // At least 5 receives everywhere (shared/queue/queues.ts); the webhook queue has its own count.
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: maxReceiveCountOf(name) },
      });
      queues.set(name, { queue, deadLetters });
    }
    this.queues = queues;

    this.scheduleGroupName = `email-campaign-${props.stage}`;
    this.scheduleGroup = new CfnScheduleGroup(this, 'ScheduleGroup', { name: this.scheduleGroupName });
    const groupArn = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule-group', resourceName: this.scheduleGroupName });
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: 'Invokes the scheduler targets when a schedule of the group fires',
      // Only schedules of this account's group may assume it (the confused-deputy guard AWS documents).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID, 'aws:SourceArn': groupArn } },
      }),
    });

    this.configurationSetName = `email-campaign-${props.stage}`;
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: this.configurationSetName,
      reputationMetrics: true,
      // SES drops mail to addresses that bounced hard or complained anywhere, before it counts against us.
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    });
    this.configurationSetArn = Stack.of(this).formatArn({ service: 'ses', resource: 'configuration-set', resourceName: this.configurationSetName });
    this.senderIdentity = new EmailIdentity(this, 'SenderDomain', {
      identity: Identity.domain(props.senderDomain),
      configurationSet: this.configurationSet,
    });

    this.sesEventArchive = createSesEventArchive(this, 'SesEventArchive', props.allowDestroy);

    this.tokenSigningKey = new Secret(this, 'TokenSigningKey', {
      description: 'Key (or key set, for rotation: see docs/operations.md) of the sealed tokens in links and list cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Links already mailed stay valid only with this key: never lose it with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.webhookSecretKey = new Secret(this, 'WebhookSecretKey', {
      description: 'Key (or key set, for rotation: see docs/operations.md) the webhooks\' signing secrets are sealed with in the table',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Every stored webhook secret is sealed with it: never lose it with the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  queueOf(name: QueueName): QueuePair {
    const pair = this.queues.get(name);
    if (!pair) throw new Error(`No queue ${name}`);
    return pair;
  }
}
