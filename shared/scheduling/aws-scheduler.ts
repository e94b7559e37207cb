// The scheduler port on AWS: one EventBridge Scheduler one-time schedule per job, deleted by the
// service after it fires.
import { randomUUID } from 'node:crypto';
import { awsCall } from '../aws/call';
import { config } from '../config';
import { scheduleInput, type EventTarget, type ScheduledJob, type SchedulerAdapter } from './scheduled-job';

/** The CreateSchedule / UpdateSchedule request, as the EventBridge Scheduler API names its members. */
export interface ScheduleRequest {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone: string;
  FlexibleTimeWindow: { Mode: 'OFF' };
  ActionAfterCompletion: 'DELETE';
  Target: { Arn: string; RoleArn: string; Input: string };
}

/** One EventBridge Scheduler REST call; each carries its own idempotency token, as the SDK's do. */
function schedulerCall(operation: string, method: 'POST' | 'PUT' | 'DELETE', path: string, body?: object): Promise<unknown> {
  return awsCall({
    service: 'scheduler',
    region: config().region,
    operation,
    method,
    path,
    headers: { 'content-type': 'application/json' },
    body,
    maxAttempts: 3,
  });
}

function upsert(operation: 'CreateSchedule' | 'UpdateSchedule', request: ScheduleRequest): Promise<unknown> {
  const { Name, ...definition } = request;
  return schedulerCall(operation, operation === 'CreateSchedule' ? 'POST' : 'PUT', `/schedules/${encodeURIComponent(Name)}`, {
    ...definition,
    ClientToken: randomUUID(),
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/** The environment variable holding a target function's ARN, e.g. `SCHEDULE_TARGET_ARN_SEND_DISPATCH`. */
export function scheduleTargetArnEnvName(target: EventTarget): string {
  return `SCHEDULE_TARGET_ARN_${target.toUpperCase().replace(/-/g, '_')}`;
}

// A one-time schedule whose time has already passed is not a reliable "fire now" on EventBridge, so a
// due or overdue job is pushed a few seconds into the future; it then fires within the minute.
const minimumLeadMs = 5_000;

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, never earlier than a few seconds from `now`. */
export function atExpression(at: Date, now: Date = new Date()): string {
  const due = new Date(Math.max(at.getTime(), now.getTime() + minimumLeadMs));
  return `at(${due.toISOString().slice(0, 19)})`;
}

/** The CreateSchedule (and UpdateSchedule) input for a job. */
export function scheduleRequest(job: ScheduledJob, now: Date = new Date()): ScheduleRequest {
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
    },
  };
}

export const awsScheduler: SchedulerAdapter = {
  async scheduleAt(job) {
    const request = scheduleRequest(job);
    try {
      await upsert('CreateSchedule', request);
    } catch (error) {
      // Same name again means "move this job": UpdateSchedule replaces every field of the schedule.
      if ((error as Error).name !== 'ConflictException') throw error;
      await upsert('UpdateSchedule', request);
    }
  },

  async cancel(name) {
    try {
      const query = new URLSearchParams({ groupName: requiredEnv('SCHEDULE_GROUP_NAME'), clientToken: randomUUID() });
      await schedulerCall('DeleteSchedule', 'DELETE', `/schedules/${encodeURIComponent(name)}?${query.toString()}`);
    } catch (error) {
      // Already fired (and deleted after completion) or never created: either way nothing will fire.
      if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    }
  },
};
