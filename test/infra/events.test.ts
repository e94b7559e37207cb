// The event side of the stack: the delivery queue feeding send-deliver (partial failures, a dead-letter
// queue, a concurrency cap under the SES rate), the scheduler group and the role schedules run as, the
// SES configuration set and identity whose events reach ses-events through its queue in batches, and
// the signing key's secret.
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, mailSendingContainers, perContainerSendRate } from '../../infra/stack/email-campaign-stack';
import { constructId, repositoryHandlers, type HandlerSource } from '../../infra/stack/lambda-bundling';
import { queueConsumerCap, sesEventsReservationFor } from '../../infra/stack/concurrency';
import { queueAgeThresholds } from '../../infra/stack/monitoring';
import { maxReceiveCount } from '../../infra/stack/platform';
import { queueBatchingWindowSeconds, queueBatchSizes, queueConsumers, queueNames } from '../../shared/queue/queues';
import { functionProperties, grantsFor, synthesize, type Synthesized } from './support';

describe('event functions and what feeds them', () => {
  let synthesized: Synthesized;
  let template: Template;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);
  const functionArn = (name: string) => resolve(synthesized.stack.functions.functionOf(name).functionArn);

  beforeAll(() => {
    synthesized = synthesize({ sesMaxSendRate: '20', deliveryConcurrency: '3' });
    template = synthesized.template;
  });

  describe('delivery queue', () => {
    test('is encrypted, refuses plain HTTP, and hides a received message six times the consumer timeout', () => {
      const { queue } = synthesized.stack.platform.queueOf('deliveries');
      const timeout = functionProperties(synthesized, 'send-deliver').Timeout as number;
      template.hasResourceProperties('AWS::SQS::Queue', {
        VisibilityTimeout: timeout * 6,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [resolve(queue.queueUrl)],
        PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
      });
    });

    test('dead-letters a message after 5 receives, the count the deliverer is told', () => {
      const { deadLetters } = synthesized.stack.platform.queueOf('deliveries');
      template.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: { maxReceiveCount, deadLetterTargetArn: resolve(deadLetters.queueArn) } });
      expect(functionProperties(synthesized, 'send-deliver').Environment.Variables.DELIVERY_MAX_RECEIVES).toBe(String(maxReceiveCount));
    });

    test('feeds send-deliver one message at a time with partial batch failures and at most deliveryConcurrency containers', () => {
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', queueNames.length);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: Match.stringLikeRegexp('^FunctionsSendDeliver') },
        EventSourceArn: resolve(synthesized.stack.platform.queueOf('deliveries').queue.queueArn),
        // One per invocation: a container takes its next message, the fair queue's choice, as soon as one is done.
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 3 },
      });
    });

    test('every queue feeds its consumer with partial batch failures, each capped; deliveries one at a time, SES events 100 at a time, the others 10', () => {
      expect(queueBatchSizes).toEqual({ deliveries: 1, imports: 10, jobs: 10, webhooks: 10, 'ses-events': 100 });
      // ses-events' cap is its reservation: 5 at 20 mails a second.
      const caps = { deliveries: 3, 'ses-events': 5 };
      for (const queue of queueNames) {
        const window = queueBatchingWindowSeconds[queue];
        const expected = {
          FunctionName: { Ref: Match.stringLikeRegexp(`^Functions${constructId(queueConsumers[queue])}`) },
          EventSourceArn: resolve(synthesized.stack.platform.queueOf(queue).queue.queueArn),
          BatchSize: queueBatchSizes[queue],
          MaximumBatchingWindowInSeconds: window === undefined ? Match.absent() : window,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: queueConsumerCap(queue, caps) },
        };
        template.hasResourceProperties('AWS::Lambda::EventSourceMapping', expected);
      }
    });

    test('containers x per-container send rate stays under the SES rate, the step runner included', () => {
      const rate = Number(functionProperties(synthesized, 'send-deliver').Environment.Variables.SES_MAX_SEND_RATE);
      const senders = mailSendingContainers(3);
      expect(senders).toBe(synthesized.stack.functions.byName.has('automation-steps') ? 4 : 3);
      expect(rate).toBe(perContainerSendRate(20, senders));
      expect(rate * senders).toBeLessThan(20);
      if (synthesized.stack.functions.byName.has('automation-steps')) {
        expect(functionProperties(synthesized, 'automation-steps')).toMatchObject({ ReservedConcurrentExecutions: 1 });
        expect(functionProperties(synthesized, 'automation-steps').Environment.Variables.SES_MAX_SEND_RATE).toBe(String(rate));
      }
      for (const [sesRate, containers] of [[14, 2], [1, 2], [500, 1000], [3.5, 7]] as const) {
        const perContainer = perContainerSendRate(sesRate, containers);
        expect(perContainer).toBeGreaterThan(0);
        expect(perContainer * containers).toBeLessThan(sesRate);
      }
    });
  });

  describe('scheduler', () => {
    test('has the stage\'s schedule group', () => {
      template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'email-campaign-dev' });
    });

    test('runs schedules as a role only EventBridge Scheduler of this account and group can assume', () => {
      const role = synthesized.stack.platform.schedulerRole;
      const roleResource = template.toJSON().Resources[(resolve(role.roleName) as { Ref: string }).Ref] as { Properties: Record<string, unknown> };
      expect(roleResource.Properties.AssumeRolePolicyDocument).toMatchObject({
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': expect.anything() } },
          },
        ],
      });
      expect(JSON.stringify(roleResource.Properties.AssumeRolePolicyDocument)).toContain(':schedule-group/email-campaign-dev');
      expect(roleResource.Properties.ManagedPolicyArns).toBeUndefined();
    });

    test('the scheduler role may invoke the scheduler targets and park failed runs, and nothing else', () => {
      const role = synthesized.stack.platform.schedulerRole;
      const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [resolve(role.roleName)] } }));
      expect(policies).toHaveLength(1);
      const statements = (policies[0] as { Properties: { PolicyDocument: { Statement: { Action: string; Resource: unknown }[] } } }).Properties.PolicyDocument.Statement;
      const targets = synthesized.stack.functions.scheduleTargets;
      expect(targets).toContain('send-dispatch');
      expect(statements).toHaveLength(2);
      const park = statements.find((statement) => statement.Action === 'sqs:SendMessage');
      expect(park?.Resource).toEqual(resolve(synthesized.stack.events.scheduledRunDeadLetters.queueArn));
      const invoke = statements.find((statement) => statement.Action === 'lambda:InvokeFunction');
      const resources = [invoke?.Resource].flat();
      expect(resources).toHaveLength(targets.length);
      expect(resources).toEqual(expect.arrayContaining(targets.map(functionArn)));
    });

    test('scheduler targets have the fixed names their ARNs are built from', () => {
      for (const target of synthesized.stack.functions.scheduleTargets) {
        expect(functionProperties(synthesized, target).FunctionName).toBe(`email-campaign-dev-${target}`);
      }
    });
  });

  describe('scheduled runs that fail', () => {
    test('a scheduler target whose handler keeps failing is parked in a dead-letter queue, not dropped', () => {
      const deadLetters = resolve(synthesized.stack.events.scheduledRunDeadLetters.queueArn);
      for (const target of ['send-dispatch', 'automation-steps', 'send-watchdog']) {
        template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
          FunctionName: { Ref: Match.stringLikeRegexp(`^Functions${target.replace(/(^|-)([a-z])/g, (_m, _d: string, c: string) => c.toUpperCase())}`) },
          MaximumRetryAttempts: 2,
          DestinationConfig: { OnFailure: { Destination: deadLetters } },
        });
      }
    });

    test('the recurring schedules deliver what they cannot invoke to the same queue', () => {
      const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule'));
      expect(schedules).toHaveLength(2);
      for (const schedule of schedules) {
        expect((schedule as { Properties: { Target: unknown } }).Properties.Target).toMatchObject({
          DeadLetterConfig: { Arn: resolve(synthesized.stack.events.scheduledRunDeadLetters.queueArn) },
        });
      }
    });
  });

  describe('send-watchdog', () => {
    test('runs every 5 minutes as a scheduler target, short and small', () => {
      const { stack } = synthesized;
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        GroupName: 'email-campaign-dev',
        ScheduleExpression: 'rate(5 minutes)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: Match.objectLike({ Arn: stack.resolve(stack.functions.functionOf('send-watchdog').functionArn), RoleArn: stack.resolve(stack.platform.schedulerRole.roleArn), Input: '{}' }),
      });
      expect(functionProperties(synthesized, 'send-watchdog')).toMatchObject({ Timeout: 60, MemorySize: 256 });
    });
  });

  describe('automation-steps', () => {
    test('is deployed and runs every minute as a scheduler target', () => {
      const { stack } = synthesized;
      expect(stack.functions.scheduleTargets).toEqual(['send-dispatch', 'automation-steps', 'send-watchdog', 'segment-windows', 'opt-in-mail']);
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        GroupName: 'email-campaign-dev',
        ScheduleExpression: 'rate(1 minute)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: stack.resolve(stack.functions.functionOf('automation-steps').functionArn), RoleArn: stack.resolve(stack.platform.schedulerRole.roleArn) },
      });
    });

    test('a checkout without its handler is refused at synth, naming the missing file', () => {
      const source: HandlerSource = {
        projectRoot: repositoryHandlers.projectRoot,
        entryFor: (name) => (name === 'automation-steps' ? join(repositoryHandlers.projectRoot, 'functions', 'no-such-function', 'handler.ts') : repositoryHandlers.entryFor(name)),
      };
      const app = new App({ builtinCloudFormationValidation: false, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [] } });
      expect(() => createEmailCampaignStack(app, source)).toThrow(/No handler for event function automation-steps at .*no-such-function/);
    });
  });

  describe('SES', () => {
    test('has a configuration set with reputation metrics and the suppression list on', () => {
      template.hasResourceProperties('AWS::SES::ConfigurationSet', {
        Name: 'email-campaign-dev',
        ReputationOptions: { ReputationMetricsEnabled: true },
        SuppressionOptions: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
      });
    });

    test('has the sender domain identity, sending through the configuration set by default', () => {
      template.hasResourceProperties('AWS::SES::EmailIdentity', {
        EmailIdentity: 'example.com',
        ConfigurationSetAttributes: { ConfigurationSetName: Match.anyValue() },
      });
    });

    test('publishes delivery, bounce, complaint and click events to EventBridge, not opens (our pixel counts them)', () => {
      template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
        EventDestination: {
          Enabled: true,
          MatchingEventTypes: Match.arrayEquals(['delivery', 'bounce', 'complaint', 'click']),
          EventBridgeDestination: { EventBusArn: Match.anyValue() },
        },
      });
    });

    test('EventBridge rules put the configuration set\'s bounces, complaints and clicks on the ses-events queue and its deliveries on the delivery stream, keeping what they cannot put', () => {
      const { queue } = synthesized.stack.platform.queueOf('ses-events');
      const parked = resolve(synthesized.stack.events.feedbackDeadLetters.queueArn);
      const { deliveryStream } = synthesized.stack.events;
      const retries = { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 24 * 3600 };
      const tags = [
        { Key: 'service', Value: 'email-campaign' },
        { Key: 'stage', Value: 'dev' },
      ];
      const rules = Object.values(template.findResources('AWS::Events::Rule', { Properties: { EventPattern: { source: ['aws.ses'] } } }));
      expect(rules.map((rule) => (rule as { Properties: unknown }).Properties)).toEqual([
        {
          Description: "SES bounce, complaint and click events of the configuration set to the feedback function's queue",
          State: 'ENABLED',
          EventPattern: {
            source: ['aws.ses'],
            'detail-type': ['Email Bounced', 'Email Complaint Received', 'Email Clicked'],
            detail: { mail: { tags: { 'ses:configuration-set': ['email-campaign-dev'] } } },
          },
          Tags: tags,
          Targets: [{ Id: 'Target0', Arn: resolve(queue.queueArn), DeadLetterConfig: { Arn: parked }, RetryPolicy: retries }],
        },
        {
          Description: 'SES delivery events of the configuration set to the delivery stream, archived in batches',
          State: 'ENABLED',
          EventPattern: {
            source: ['aws.ses'],
            'detail-type': ['Email Delivered'],
            detail: { mail: { tags: { 'ses:configuration-set': ['email-campaign-dev'] } } },
          },
          Tags: tags,
          // The whole event is the record (no Input), put as a role that may put records on this stream only.
          Targets: [{ Id: 'Target0', Arn: resolve(deliveryStream.stream.deliveryStreamArn), RoleArn: expect.anything(), DeadLetterConfig: { Arn: parked }, RetryPolicy: retries }],
        },
      ]);
      // Only this rule may put messages on the queue (and on the queue that keeps what it could not put).
      const sends: [typeof queue, unknown][] = [
        [queue, ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']],
        [synthesized.stack.events.feedbackDeadLetters, 'sqs:SendMessage'],
      ];
      for (const [target, actions] of sends) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [resolve(target.queueUrl)],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Effect: 'Allow',
                Action: actions,
                Principal: { Service: 'events.amazonaws.com' },
                Condition: { ArnEquals: { 'aws:SourceArn': resolve(synthesized.stack.events.sesEventsRule.ruleArn) } },
              }),
            ]),
          },
        });
      }
      // Nothing invokes ses-events but its queue's event source, and a direct invocation (the rule's, before the queue) still parks its failures.
      expect(JSON.stringify(template.findResources('AWS::Events::Rule'))).not.toContain(JSON.stringify(functionArn('ses-events')));
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: Match.stringLikeRegexp('^FunctionsSesEvents') },
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: parked } },
      });
    });

    test('the delivery stream buffers 1 MiB or 30 s, one event a line, into the archive bucket under its prefix, writing as a role that may only put objects there', () => {
      const bucket = synthesized.stack.platform.sesEventArchive;
      const { deliveryStream } = synthesized.stack.events;
      const streams = Object.values(template.findResources('AWS::KinesisFirehose::DeliveryStream')).map((stream) => (stream as { Properties: unknown }).Properties);
      expect(streams).toEqual([
        {
          DeliveryStreamType: 'DirectPut',
          DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
          ExtendedS3DestinationConfiguration: {
            BucketARN: resolve(bucket.bucketArn),
            RoleARN: resolve(deliveryStream.role.roleArn),
            Prefix: 'ses-delivery-events/',
            BufferingHints: { IntervalInSeconds: 30, SizeInMBs: 1 },
            CompressionFormat: 'UNCOMPRESSED',
            ProcessingConfiguration: { Enabled: true, Processors: [{ Type: 'AppendDelimiterToRecord', Parameters: [] }] },
          },
          Tags: [
            { Key: 'service', Value: 'email-campaign' },
            { Key: 'stage', Value: 'dev' },
          ],
        },
      ]);
      const roleId = (resolve(deliveryStream.role.roleArn) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const role = template.toJSON().Resources[roleId] as { Properties: { AssumeRolePolicyDocument: unknown; Policies: { PolicyDocument: unknown }[] } };
      expect(role.Properties.AssumeRolePolicyDocument).toMatchObject({
        Statement: [{ Action: 'sts:AssumeRole', Principal: { Service: 'firehose.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } }],
      });
      expect(role.Properties.Policies.map((policy) => policy.PolicyDocument)).toEqual([
        {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['s3:AbortMultipartUpload', 's3:PutObject'], Resource: { 'Fn::Join': ['', [resolve(bucket.bucketArn), '/ses-delivery-events/*']] } },
            { Effect: 'Allow', Action: ['s3:GetBucketLocation', 's3:ListBucketMultipartUploads'], Resource: resolve(bucket.bucketArn) },
          ],
        },
      ]);
      // A record waiting 15 minutes (S3 refusing the stream for many retries) alarms.
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Firehose',
        MetricName: 'DeliveryToS3.DataFreshness',
        Dimensions: [{ Name: 'DeliveryStreamName', Value: resolve(deliveryStream.stream.deliveryStreamName) }],
        Statistic: 'Maximum',
        Threshold: 15 * 60,
        EvaluationPeriods: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      // Nothing else grants the stream's role anything, and EventBridge's role may only put records on this stream.
      expect(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } })).toEqual({});
      const rule = Object.values(template.findResources('AWS::Events::Rule', { Properties: { EventPattern: { 'detail-type': ['Email Delivered'] } } }))[0] as { Properties: { Targets: { RoleArn: { 'Fn::GetAtt': [string, string] } }[] } };
      const eventsRole = rule.Properties.Targets[0]?.RoleArn['Fn::GetAtt'][0];
      const eventsPolicies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: eventsRole }] } })) as { Properties: { PolicyDocument: { Statement: unknown[] } } }[];
      expect(eventsPolicies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        [{ Effect: 'Allow', Action: ['firehose:PutRecord', 'firehose:PutRecordBatch'], Resource: resolve(deliveryStream.stream.deliveryStreamArn) }],
      ]);
    });

    test('the archive bucket is encrypted, private, TLS only, announces its objects to EventBridge itself and forgets them after 7 days', () => {
      const bucket = synthesized.stack.platform.sesEventArchive;
      const bucketId = (resolve(bucket.bucketArn) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect((template.toJSON().Resources[bucketId] as { Properties: unknown }).Properties).toEqual({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LifecycleConfiguration: { Rules: [{ Status: 'Enabled', ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }] },
        // The L1 property: no custom resource sets it.
        NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
        Tags: [
          { Key: 'service', Value: 'email-campaign' },
          { Key: 'stage', Value: 'dev' },
        ],
      });
      expect(template.findResources('Custom::S3BucketNotifications')).toEqual({});
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
      });
    });

    test('a rule puts S3\'s announcement of each archived object on the ses-events queue, as the SES events rule does, and ses-events may read those objects only', () => {
      const bucket = synthesized.stack.platform.sesEventArchive;
      const { queue } = synthesized.stack.platform.queueOf('ses-events');
      const parked = resolve(synthesized.stack.events.feedbackDeadLetters.queueArn);
      const rules = Object.values(template.findResources('AWS::Events::Rule', { Properties: { EventPattern: { source: ['aws.s3'] } } })).map((rule) => (rule as { Properties: unknown }).Properties);
      expect(rules).toEqual([
        {
          Description: "Objects of the SES delivery events archive to the feedback function's queue",
          State: 'ENABLED',
          EventPattern: {
            source: ['aws.s3'],
            'detail-type': ['Object Created'],
            detail: { bucket: { name: [resolve(bucket.bucketName)] }, object: { key: [{ prefix: 'ses-delivery-events/' }] } },
          },
          Tags: [
            { Key: 'service', Value: 'email-campaign' },
            { Key: 'stage', Value: 'dev' },
          ],
          Targets: [{ Id: 'Target0', Arn: resolve(queue.queueArn), DeadLetterConfig: { Arn: parked }, RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 24 * 3600 } }],
        },
      ]);
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [resolve(queue.queueUrl)],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': resolve(synthesized.stack.events.deliveryStream.objectsRule.ruleArn) } } }),
          ]),
        },
      });
      expect(functionProperties(synthesized, 'ses-events').Environment.Variables.SES_EVENT_BUCKET).toEqual(resolve(bucket.bucketName));
      expect(grantsFor(synthesized, 'ses-events', 's3:')).toEqual({ 's3:GetObject': [JSON.stringify({ 'Fn::Join': ['', [resolve(bucket.bucketArn), '/ses-delivery-events/*']] })] });
      // No other function may touch the archive.
      for (const name of synthesized.stack.functions.byName.keys()) {
        if (name !== 'ses-events') expect({ name, s3: grantsFor(synthesized, name, 's3:') }).toEqual({ name, s3: {} });
      }
    });

    test('the ses-events queue is encrypted, keeps SES events 14 days, dead-letters after 5 receives and alarms when an event waits 15 minutes', () => {
      const { queue, deadLetters } = synthesized.stack.platform.queueOf('ses-events');
      const queueId = (resolve(queue.queueArn) as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(template.toJSON().Resources[queueId]).toEqual({
        Type: 'AWS::SQS::Queue',
        Properties: {
          MessageRetentionPeriod: 14 * 24 * 3600,
          // Six times ses-events' 30 s timeout.
          VisibilityTimeout: (functionProperties(synthesized, 'ses-events').Timeout as number) * 6,
          SqsManagedSseEnabled: true,
          RedrivePolicy: { deadLetterTargetArn: resolve(deadLetters.queueArn), maxReceiveCount: 5 },
          Tags: [
            { Key: 'service', Value: 'email-campaign' },
            { Key: 'stage', Value: 'dev' },
          ],
        },
        UpdateReplacePolicy: 'Delete',
        DeletionPolicy: 'Delete',
      });
      expect(queueAgeThresholds['ses-events'].toMinutes()).toBe(15);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: resolve(queue.queueName) }],
        Threshold: 15 * 60,
        EvaluationPeriods: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: resolve(deadLetters.queueName) }],
        Threshold: 1,
      });
    });

    test('ses-events takes batches of 100 gathered for up to 5 seconds, as many containers at once as it reserves', () => {
      const reserved = sesEventsReservationFor(20);
      expect(reserved).toBe(5);
      expect(functionProperties(synthesized, 'ses-events').ReservedConcurrentExecutions).toBe(reserved);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: Match.stringLikeRegexp('^FunctionsSesEvents') },
        EventSourceArn: resolve(synthesized.stack.platform.queueOf('ses-events').queue.queueArn),
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: reserved },
      });
    });
  });

  describe('token-signing key', () => {
    test('is a generated secret that outlives the stack, never written in the template', () => {
      template.hasResource('AWS::SecretsManager::Secret', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true }, SecretString: Match.absent() },
      });
    });
  });

  test('outputs the API root, the table name and the public pages root', () => {
    template.hasOutput('ApiBaseUrl', { Value: Match.anyValue() });
    template.hasOutput('TableName', { Value: resolve(synthesized.stack.table.tableName) });
    template.hasOutput('PublicPagesBaseUrl', { Value: resolve(`${synthesized.stack.publicLinks.baseUrl}public/`) });
  });
});
