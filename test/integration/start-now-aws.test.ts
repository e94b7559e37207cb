// Starting a job at once on AWS (shared/scheduling/aws-start-now.ts), against a stub Lambda endpoint
// through the real SDK: one asynchronous Invoke of the target's function (the ARN the scheduler's
// adapter reads), with the job's payload as the scheduler would deliver it, and no schedule at all;
// an invoke Lambda did not queue fails the call, so the caller can undo what it stored.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../shared/config';
import { runAsDeployed } from '../support/aws-runtime';
import { startNow } from '../../shared/scheduling/start-now';

interface Recorded {
  method: string;
  path: string;
  invocationType: string | undefined;
  body: string;
}

const requests: Recorded[] = [];
let server: Server;
/** What the stub answers an invoke with: 202 is an event invoke Lambda accepted. */
let answer = { status: 202, type: '' };

function startStub(): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: decodeURIComponent(request.url ?? ''),
        invocationType: request.headers['x-amz-invocation-type'] as string | undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (answer.type) {
        response.writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-errortype': answer.type });
        response.end(JSON.stringify({ Type: 'User', message: answer.type }));
        return;
      }
      response.writeHead(answer.status);
      response.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  const endpoint = await startStub();
  runAsDeployed({
    AWS_ENDPOINT_URL_LAMBDA: endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: endpoint,
    SCHEDULE_TARGET_ARN_SEND_DISPATCH: 'arn:aws:lambda:us-east-1:000000000000:function:send-dispatch',
  });
});

beforeEach(() => {
  requests.length = 0;
  answer = { status: 202, type: '' };
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  resetConfig();
});

test('a job started now is one event invoke of its target, with its payload, and no schedule', async () => {
  // Act
  await startNow({ name: 'single-send-42', target: 'send-dispatch', payload: { accountId: 42, utr: 'abc' } });

  // Assess
  expect(requests).toEqual([
    {
      method: 'POST',
      path: '/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:send-dispatch/invocations',
      invocationType: 'Event',
      body: '{"accountId":42,"utr":"abc"}',
    },
  ]);
});

test('an invoke Lambda refuses (the function throttled, say) fails the call', async () => {
  answer = { status: 429, type: 'TooManyRequestsException' };
  await expect(startNow({ name: 'single-send-43', target: 'send-dispatch', payload: { accountId: 43, utr: 'abc' } })).rejects.toThrow();
  expect(requests.length).toBeGreaterThanOrEqual(1);
});

test('an answer other than 202 (a synchronous invoke) is not taken for a queued one', async () => {
  answer = { status: 200, type: '' };
  await expect(startNow({ name: 'single-send-44', target: 'send-dispatch', payload: { accountId: 44, utr: 'abc' } })).rejects.toThrow('Lambda did not queue send-dispatch for job single-send-44 (status 200)');
});
