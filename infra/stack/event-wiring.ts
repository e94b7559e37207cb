// How events reach the event functions: each queue feeds its consumer (partial batch failures, a
// concurrency cap per queue, the deliverers' keeping SES under its rate), EventBridge Scheduler fires the scheduler targets,
// and the SES configuration set's events reach the feedback function through EventBridge and its queue, in batches:
// bounces, complaints and clicks one message each, deliveries in objects of the delivery stream (ses-delivery-archive.ts).
import { Duration } from 'aws-cdk-lib';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnSchedule } from 'aws-cdk-lib/aws-scheduler';
import { EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { queueBatchingWindowSeconds, queueBatchSizes, queueConsumers, queueNames, queueUrlEnvName } from '../../shared/queue/queues';
import { scheduleDeadLetterArnEnvName } from '../../shared/scheduling/aws-scheduler';
import { sendWatchdogIntervalMinutes, type EventTarget } from '../../shared/scheduling/scheduled-job';
import { identityRefreshIntervalMinutes } from '../../shared/sender-verification/refresh-service';
import { queueConsumerCap } from './concurrency';
import { needsOf } from './function-needs';
import { ruleRetries, SesDeliveryStream } from './ses-delivery-archive';
import type { Platform } from './platform';
import { identityRefreshFunction, sesEventsFunction, type ServiceFunctions } from './service-functions';

/** Scheduler targets that also run on a fixed rate, besides their one-time jobs. */
export const recurringSchedules: Partial<Record<EventTarget, string>> = {
  'automation-steps': 'rate(1 minute)',
  'send-watchdog': `rate(${sendWatchdogIntervalMinutes} minutes)`,
};

/**
 * The SES events the feedback function receives. Not opens: our own pixel counts them, and each SES
 * open event would cost a queue request for nothing when a deployment turns SES's tracking on (for clicks).
 */
export const sesEvents = [EmailSendingEvent.DELIVERY, EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT, EmailSendingEvent.CLICK];

// The detail types EventBridge gives those events: deliveries (one a mail) go to the delivery stream,
// the rest (rare, and a suppression must apply at once) to the queue one by one.
const sesQueuedDetailTypes = ['Email Bounced', 'Email Complaint Received', 'Email Clicked'];

export interface EventWiringProps {
  platform: Platform;
  functions: ServiceFunctions;
  /** Delivery containers at most (SQS event source maximum concurrency). */
  deliveryConcurrency: number;
  /** ses-events containers at most (its queue's event source maximum concurrency: concurrency.ts, sesEventsConsumersFor). */
  sesEventsConcurrency: number;
}

export class EventWiring extends Construct {
  /**
   * SES events EventBridge could not put on the ses-events queue after its retries (those the
   * function could not apply go to that queue's own dead-letter queue), kept for inspection.
   */
  readonly feedbackDeadLetters: Queue;
  /**
   * Scheduled runs (a send's dispatch, the step runner) whose handler failed after Lambda's two
   * retries, or that the scheduler could not invoke: kept, and alarmed on, instead of dropped, so a
   * send never sits at "running" with nobody told.
   */
  readonly scheduledRunDeadLetters: Queue;
  readonly sesEventsRule: Rule;
  /** SES's delivery events, archived in batches whose objects reach the same queue. */
  readonly deliveryStream: SesDeliveryStream;

  constructor(scope: Construct, id: string, props: EventWiringProps) {
    super(scope, id);
    const { platform, functions } = props;

    const sizedCaps = { deliveries: props.deliveryConcurrency, 'ses-events': props.sesEventsConcurrency };
    for (const queue of queueNames) {
      // A consumer may change the visibility of what it received (a retry on its own backoff): it needs its queue's URL.
      functions.functionOf(queueConsumers[queue]).addEnvironment(queueUrlEnvName(queue), platform.queueOf(queue).queue.queueUrl);
      const window = queueBatchingWindowSeconds[queue];
      functions.functionOf(queueConsumers[queue]).addEventSource(
        new SqsEventSource(platform.queueOf(queue).queue, {
          batchSize: queueBatchSizes[queue],
          ...(window === undefined ? {} : { maxBatchingWindow: Duration.seconds(window) }),
          reportBatchItemFailures: true,
          // Every queue's consumers are capped, so no queue takes the account's concurrency from the
          // API; the deliverers' cap also keeps them under the SES rate.
          maxConcurrency: queueConsumerCap(queue, sizedCaps),
        }),
      );
    }

    this.scheduledRunDeadLetters = new Queue(this, 'ScheduledRunDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    // What a schedule (recurring, or a send's one-time job) cannot invoke goes here: the role may send to it, and only that.
    platform.schedulerRole.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.scheduledRunDeadLetters.queueArn] }));
    // Functions that create one-time schedules give each this queue as its dead-letter target.
    for (const [name, fn] of functions.byName) {
      if (needsOf(name).schedules) fn.addEnvironment(scheduleDeadLetterArnEnvName, this.scheduledRunDeadLetters.queueArn);
    }

    for (const target of functions.scheduleTargets) {
      // The scheduler invokes asynchronously: when the handler throws, Lambda retries twice, then parks the event.
      functions.functionOf(target).configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(this.scheduledRunDeadLetters) });
      // The unqualified ARN only: schedules target the function, never a version or alias.
      platform.schedulerRole.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [functions.functionOf(target).functionArn] }),
      );
      const rate = recurringSchedules[target];
      if (!rate) continue;
      const schedule = new CfnSchedule(this, `${target}-recurring`, {
        groupName: platform.scheduleGroupName,
        scheduleExpression: rate,
        flexibleTimeWindow: { mode: 'OFF' },
        description: `Runs ${target} on a fixed rate`,
        target: {
          arn: functions.functionOf(target).functionArn,
          roleArn: platform.schedulerRole.roleArn,
          input: '{}',
          // The next run comes soon; an old run is worth nothing.
          retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
          deadLetterConfig: { arn: this.scheduledRunDeadLetters.queueArn },
        },
      });
      // The group is named, not referenced, so say that the schedule needs it.
      schedule.node.addDependency(platform.scheduleGroup);
    }

    // The periodic check of pending SES identities: a plain rate rule, as it is never a one-time job's target.
    new Rule(this, 'IdentityRefresh', {
      description: 'Refreshes pending sender domains and unverified senders from SES',
      schedule: Schedule.rate(Duration.minutes(identityRefreshIntervalMinutes)),
      targets: [new LambdaFunction(functions.functionOf(identityRefreshFunction), { retryAttempts: 0, maxEventAge: Duration.minutes(5) })],
    });

    this.feedbackDeadLetters = new Queue(this, 'FeedbackDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    platform.configurationSet.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(defaultBus),
      events: sesEvents,
    });
    const feedback = functions.functionOf(sesEventsFunction);
    // The rule invoked the function directly before its events went through the queue: an invocation
    // Lambda still retries after that change, or one an operator makes by hand, parks its failure here too.
    feedback.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(this.feedbackDeadLetters) });
    // Through a queue, so the function takes them in batches, one invocation for up to a batch of
    // events (docs/benchmarks.md: Cost per million mails).
    this.sesEventsRule = new Rule(this, 'SesEvents', {
      description: 'SES bounce, complaint and click events of the configuration set to the feedback function\'s queue',
      eventPattern: {
        source: ['aws.ses'],
        detailType: sesQueuedDetailTypes,
        detail: { mail: { tags: { 'ses:configuration-set': [platform.configurationSetName] } } },
      },
      // EventBridge's own limits: a queue that refuses for a day is an outage the alarms report long before.
      targets: [new SqsQueue(platform.queueOf('ses-events').queue, { deadLetterQueue: this.feedbackDeadLetters, ...ruleRetries })],
    });
    // Deliveries, one a mail, in objects of a few hundred: a queue message per object, not per mail.
    this.deliveryStream = new SesDeliveryStream(this, 'SesDeliveries', {
      bucket: platform.sesEventArchive,
      configurationSetName: platform.configurationSetName,
      queue: platform.queueOf('ses-events').queue,
      deadLetters: this.feedbackDeadLetters,
    });
  }
}
