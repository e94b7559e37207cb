// SES's delivery events in batches: the archive bucket (an object a stream buffer, kept a few days so
// an operator can replay one), the Firehose delivery stream that buffers the `Email Delivered` events
// EventBridge hands it and writes them there as newline-delimited objects, and the rule that puts S3's
// `Object Created` event of each object on the ses-events queue, where the feedback function reads the
// object (shared/feedback/delivery-archive.ts). One queue message per object instead of one per mail.
import { Aws, Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import { Rule, type CfnRule } from 'aws-cdk-lib/aws-events';
import { addToDeadLetterQueueResourcePolicy, FirehoseDeliveryStream, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AppendDelimiterToRecordProcessor, Compression, DeliveryStream, DisableLogging, S3Bucket, StreamEncryption } from 'aws-cdk-lib/aws-kinesisfirehose';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deliveryArchiveDays, deliveryBufferBytes, deliveryBufferSeconds, deliveryEventsPrefix } from '../ses-delivery-stream';

/**
 * The bucket the stream writes to. S3 announces its new objects to EventBridge through the L1
 * property: CDK's `eventBridgeEnabled` would add a custom-resource Lambda to set the same thing.
 */
export function createSesEventArchive(scope: Construct, id: string, allowDestroy: boolean): Bucket {
  const bucket = new Bucket(scope, id, {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    // Every object is counted within minutes; the days after are for an operator's replay.
    lifecycleRules: [{ expiration: Duration.days(deliveryArchiveDays), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    // Emptied by its lifecycle within days: a stage that may be destroyed loses nothing it needs.
    removalPolicy: allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  (bucket.node.defaultChild as CfnBucket).notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
  return bucket;
}

export interface SesDeliveryStreamProps {
  bucket: Bucket;
  /** The configuration set whose `Email Delivered` events the stream takes. */
  configurationSetName: string;
  /** The ses-events queue: S3's announcement of each object goes there. */
  queue: Queue;
  /** What EventBridge could not hand on after its retries. */
  deadLetters: Queue;
}

/** EventBridge's own limits, as on the SES events rule: a target that refuses for a day is an outage the alarms report first. */
export const ruleRetries = { retryAttempts: 185, maxEventAge: Duration.hours(24) };

export class SesDeliveryStream extends Construct {
  readonly stream: DeliveryStream;
  /** `Email Delivered` events of the configuration set to the stream. */
  readonly deliveriesRule: Rule;
  /** S3's `Object Created` events of the stream's objects to the ses-events queue. */
  readonly objectsRule: Rule;
  /** The role the stream writes as: PutObject under the prefix, nothing else. */
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SesDeliveryStreamProps) {
    super(scope, id);
    const { bucket } = props;
    this.role = new Role(this, 'Role', {
      description: 'Writes the SES delivery events stream\'s objects under its prefix of the archive bucket',
      // Only Firehose streams of this account (the confused-deputy guard AWS documents).
      assumedBy: new ServicePrincipal('firehose.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } }),
      // CDK's destination would grant read and write on the whole bucket; the stream gets these instead
      // (the bucket-level reads are the ones Firehose's documentation lists for a delivery). Inline: one
      // resource, not two.
      inlinePolicies: {
        WriteObjects: new PolicyDocument({
          statements: [
            new PolicyStatement({ actions: ['s3:PutObject', 's3:AbortMultipartUpload'], resources: [bucket.arnForObjects(`${deliveryEventsPrefix}*`)] }),
            new PolicyStatement({ actions: ['s3:GetBucketLocation', 's3:ListBucketMultipartUploads'], resources: [bucket.bucketArn] }),
          ],
        }),
      },
    });
    this.stream = new DeliveryStream(this, 'Stream', {
      destination: new S3Bucket(bucket, {
        role: this.role.withoutPolicyUpdates(),
        dataOutputPrefix: deliveryEventsPrefix,
        // A 1 MiB buffer bounds an object to about 700 events; 30 s bounds how late a delivery is counted.
        bufferingSize: Size.mebibytes(deliveryBufferBytes / (1024 * 1024)),
        bufferingInterval: Duration.seconds(deliveryBufferSeconds),
        // One event a line: Firehose writes records back to back otherwise.
        processors: [new AppendDelimiterToRecordProcessor()],
        // Uncompressed: storage for the days an object is kept costs about 2 cents per million mails,
        // and an operator reads or replays an object as it is.
        compression: Compression.UNCOMPRESSED,
        // Failed deliveries show in the stream's metrics, alarmed on (monitoring.ts): no log group.
        loggingConfig: new DisableLogging(),
      }),
      encryption: StreamEncryption.awsOwnedKey(),
    });

    this.deliveriesRule = new Rule(this, 'Deliveries', {
      description: 'SES delivery events of the configuration set to the delivery stream, archived in batches',
      eventPattern: {
        source: ['aws.ses'],
        detailType: ['Email Delivered'],
        detail: { mail: { tags: { 'ses:configuration-set': [props.configurationSetName] } } },
      },
      // The whole event is the record, as the queue's messages carry it.
      targets: [new FirehoseDeliveryStream(this.stream)],
    });
    // The Firehose target takes no retry or dead-letter settings in CDK: the same as the queue targets', set on the rule.
    const ruleResource = this.deliveriesRule.node.defaultChild as CfnRule;
    ruleResource.addPropertyOverride('Targets.0.RetryPolicy', { MaximumRetryAttempts: ruleRetries.retryAttempts, MaximumEventAgeInSeconds: ruleRetries.maxEventAge.toSeconds() });
    ruleResource.addPropertyOverride('Targets.0.DeadLetterConfig', { Arn: props.deadLetters.queueArn });
    addToDeadLetterQueueResourcePolicy(this.deliveriesRule, props.deadLetters);

    this.objectsRule = new Rule(this, 'Objects', {
      description: 'Objects of the SES delivery events archive to the feedback function\'s queue',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: { bucket: { name: [bucket.bucketName] }, object: { key: [{ prefix: deliveryEventsPrefix }] } },
      },
      targets: [new SqsQueue(props.queue, { deadLetterQueue: props.deadLetters, ...ruleRetries })],
    });
  }
}
