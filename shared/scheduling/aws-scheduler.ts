// The scheduler port on AWS: one EventBridge Scheduler one-time schedule per job, deleted by the
// service after it fires. A job the scheduler cannot invoke (after its own retries) goes to the
// scheduled-runs dead-letter queue, as a failed run does, so no send is left waiting on a lost job.
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { awsClient } from '../aws-clients';
import { requiredEnv } from '../config';
import { scheduleInput, type EventTarget, type ScheduledJob, type SchedulerAdapter } from './scheduled-job';

// The SDK fills each call's ClientToken, so a retried CreateSchedule after a lost answer is idempotent.
export const schedulerClient = awsClient(({ region }) => new SchedulerClient({ region }));

/** The environment variable holding a target function's ARN, e.g. `SCHEDULE_TARGET_ARN_SEND_DISPATCH`. */
export function scheduleTargetArnEnvName(target: EventTarget): string {
  return `SCHEDULE_TARGET_ARN_${target.toUpperCase().replace(/-/g, '_')}`;
}

// A one-time schedule whose time has already passed is not a reliable "fire now" on EventBridge, so a
// due or overdue job is pushed a few seconds into the future; it then fires within the minute.
const minimumLeadMs = 5_000;

/** The environment variable holding the scheduled-runs dead-letter queue's ARN. */
export const scheduleDeadLetterArnEnvName = 'SCHEDULE_DEAD_LETTER_ARN';

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, never earlier than a few seconds from `now`. */
export function atExpression(at: Date, now: Date = new Date()): string {
  const due = new Date(Math.max(at.getTime(), now.getTime() + minimumLeadMs));
  return `at(${due.toISOString().slice(0, 19)})`;
}

/** The CreateSchedule (and UpdateSchedule) input for a job. */
export function scheduleRequest(job: ScheduledJob, now: Date = new Date()): CreateScheduleCommandInput {
  return {
    Name: job.name,
    GroupName: requiredEnv('SCHEDULE_GROUP_NAME'),
    ScheduleExpression: atExpression(job.at, now),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: {
      Arn: requiredEnv(scheduleTargetArnEnvName(job.target)),
      RoleArn: requiredEnv('SCHEDULER_ROLE_ARN'),
      Input: scheduleInput(job),
      DeadLetterConfig: { Arn: requiredEnv(scheduleDeadLetterArnEnvName) },
    },
  };
}

export const awsScheduler: SchedulerAdapter = {
  async scheduleAt(job) {
    const request = scheduleRequest(job);
    try {
      await schedulerClient().send(new CreateScheduleCommand(request));
    } catch (error) {
      // Same name again means "move this job": UpdateSchedule replaces every field of the schedule.
      if ((error as Error).name !== 'ConflictException') throw error;
      await schedulerClient().send(new UpdateScheduleCommand(request));
    }
  },

  async cancel(name) {
    try {
      await schedulerClient().send(new DeleteScheduleCommand({ Name: name, GroupName: requiredEnv('SCHEDULE_GROUP_NAME') }));
    } catch (error) {
      // Already fired (and deleted after completion) or never created: either way nothing will fire.
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
  },
};
