// The EventBridge Scheduler adapter against a stub endpoint: the requests it makes (one-time `at()` in
// UTC, OFF window, delete after completion, group, role, target, Input and the dead-letter queue),
// update on conflict, and cancel ignoring a missing schedule.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../shared/config';
import { runAsDeployed } from '../support/aws-runtime';
import { atExpression } from '../../shared/scheduling/aws-scheduler';
import { cancel, scheduleAt } from '../../shared/scheduling/scheduler';

interface Recorded {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

const requests: Recorded[] = [];
let server: Server;

/** Answers like EventBridge Scheduler: `exists` is taken (409), `missing` is not there (404). */
function startStub(): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = decodeURIComponent((request.url ?? '').split('?')[0] ?? '');
      requests.push({ method: request.method ?? '', path: request.url ?? '', body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      const fail = (status: number, type: string) => {
        response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
        response.end(JSON.stringify({ Message: type }));
      };
      if (request.method === 'POST' && path.endsWith('/exists')) return fail(409, 'ConflictException');
      if (request.method === 'DELETE' && path.endsWith('/missing')) return fail(404, 'ResourceNotFoundException');
      if (request.method === 'DELETE' && path.endsWith('/broken')) return fail(400, 'ValidationException');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:000000000000:schedule/group${path}` }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  const endpoint = await startStub();
  runAsDeployed({
    AWS_ENDPOINT_URL_SCHEDULER: endpoint,
    SCHEDULE_GROUP_NAME: 'email-service',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/scheduler',
    SCHEDULE_TARGET_ARN_SEND_DISPATCH: 'arn:aws:lambda:us-east-1:000000000000:function:send-dispatch',
    SCHEDULE_TARGET_ARN_AUTOMATION_STEPS: 'arn:aws:lambda:us-east-1:000000000000:function:automation-steps',
    SCHEDULE_DEAD_LETTER_ARN: 'arn:aws:sqs:us-east-1:000000000000:scheduled-runs-dead-letters',
  });
});

beforeEach(() => {
  requests.length = 0;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  resetConfig();
});

test('a job becomes one CreateSchedule: at() in UTC, no window, deleted after completion, failures to the dead-letter queue', async () => {
  // Act
  await scheduleAt({ name: 'single-send-42', at: new Date('2030-01-02T03:04:05.678Z'), target: 'send-dispatch', payload: { single_send_id: 42 } });

  // Assess
  expect(requests).toHaveLength(1);
  expect(requests[0]?.method).toBe('POST');
  expect(requests[0]?.path).toMatch(/^\/schedules\/single-send-42/);
  expect(requests[0]?.body).toMatchObject({
    GroupName: 'email-service',
    ScheduleExpression: 'at(2030-01-02T03:04:05)',
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: {
      Arn: 'arn:aws:lambda:us-east-1:000000000000:function:send-dispatch',
      RoleArn: 'arn:aws:iam::000000000000:role/scheduler',
      Input: '{"single_send_id":42}',
      // What the scheduler cannot invoke is kept and alarmed on, never dropped.
      DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:000000000000:scheduled-runs-dead-letters' },
    },
  });
});

test('a name that already exists is updated with the same definition', async () => {
  await scheduleAt({ name: 'exists', at: new Date('2030-06-01T00:00:00Z'), target: 'automation-steps', payload: { bucket: '2030-06-01T00:00' } });

  expect(requests.map((request) => request.method)).toEqual(['POST', 'PUT']);
  // The SDK gives each call its own idempotency token; everything else is the same definition.
  const { ClientToken: _created, ...created } = requests[0]?.body ?? {};
  const { ClientToken: _updated, ...updated } = requests[1]?.body ?? {};
  expect(updated).toEqual(created);
  expect(requests[1]?.body).toMatchObject({ Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:automation-steps' } });
});

test('cancel deletes the schedule in its group and ignores one that is already gone', async () => {
  await cancel('single-send-42');
  await cancel('missing');

  expect(requests.map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
  expect(requests[0]?.path).toMatch(/^\/schedules\/single-send-42\?.*groupName=email-service/);
  await expect(cancel('broken')).rejects.toMatchObject({ name: 'ValidationException' });
});

test('a due or overdue time is moved a few seconds ahead, never into the past', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');

  expect(atExpression(new Date('2029-12-31T23:00:00Z'), now)).toBe('at(2030-01-01T00:00:05)');
  expect(atExpression(new Date('2030-01-01T00:10:00Z'), now)).toBe('at(2030-01-01T00:10:00)');
});

test('a missing dead-letter queue ARN is a clear configuration error, not a schedule without one', async () => {
  const saved = process.env.SCHEDULE_DEAD_LETTER_ARN;
  delete process.env.SCHEDULE_DEAD_LETTER_ARN;
  try {
    await expect(scheduleAt({ name: 'no-dlq', at: new Date(), target: 'send-dispatch', payload: {} })).rejects.toThrow(
      'Missing required environment variable SCHEDULE_DEAD_LETTER_ARN',
    );
  } finally {
    process.env.SCHEDULE_DEAD_LETTER_ARN = saved;
  }
  expect(requests).toHaveLength(0);
});

test('a missing target ARN is a clear configuration error', async () => {
  const saved = process.env.SCHEDULE_TARGET_ARN_SEND_DISPATCH;
  delete process.env.SCHEDULE_TARGET_ARN_SEND_DISPATCH;
  try {
    await expect(scheduleAt({ name: 'no-arn', at: new Date(), target: 'send-dispatch', payload: {} })).rejects.toThrow(
      'Missing required environment variable SCHEDULE_TARGET_ARN_SEND_DISPATCH',
    );
  } finally {
    process.env.SCHEDULE_TARGET_ARN_SEND_DISPATCH = saved;
  }
  expect(requests).toHaveLength(0);
});
