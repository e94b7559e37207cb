// The SQS adapter against a stub endpoint: SendMessageBatch in chunks of 10, only failed entries
// resent, sender faults not retried.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../shared/config';
import { runAsDeployed } from '../support/aws-runtime';
import { sendMessages } from '../../shared/queue/queue';

interface BatchEntry {
  Id: string;
  MessageBody: string;
  MessageGroupId?: string;
  DelaySeconds?: number;
}

const batches: Array<{ queueUrl: string; entries: BatchEntry[] }> = [];
/** Decides, per call, which entries the stub reports as failed. */
let failEntries: (entries: BatchEntry[], call: number) => Array<{ Id: string; SenderFault: boolean; Code: string }> = () => [];
let server: Server;

function startStub(): Promise<string> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { QueueUrl: string; Entries: BatchEntry[] };
      batches.push({ queueUrl: input.QueueUrl, entries: input.Entries });
      const failed = failEntries(input.Entries, batches.length);
      const failedIds = new Set(failed.map((entry) => entry.Id));
      const successful = input.Entries.filter((entry) => !failedIds.has(entry.Id)).map((entry) => ({
        Id: entry.Id,
        MessageId: `m-${batches.length}-${entry.Id}`,
        MD5OfMessageBody: createHash('md5').update(entry.MessageBody).digest('hex'),
      }));
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ Successful: successful, Failed: failed }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

// The SQS client sends to the queue URL's host, so the URL points at the stub.
let queueUrl = '';

beforeAll(async () => {
  const endpoint = await startStub();
  queueUrl = `${endpoint}/000000000000/deliveries`;
  runAsDeployed({
    AWS_ENDPOINT_URL_SQS: endpoint,
    QUEUE_URL_DELIVERIES: queueUrl,
  });
});

beforeEach(() => {
  batches.length = 0;
  failEntries = () => [];
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  resetConfig();
});

test('25 messages go to the queue URL as batches of 10, 10 and 5', async () => {
  await sendMessages('deliveries', Array.from({ length: 25 }, (_, n) => ({ recipient: n })));

  expect(batches.map((batch) => batch.entries.length)).toEqual([10, 10, 5]);
  expect(batches.every((batch) => batch.queueUrl === queueUrl)).toBe(true);
  const bodies = batches.flatMap((batch) => batch.entries.map((entry) => JSON.parse(entry.MessageBody) as { recipient: number }));
  expect(bodies.map((body) => body.recipient)).toEqual(Array.from({ length: 25 }, (_, n) => n));
});

test('entries SQS fails are sent again, and only those', async () => {
  failEntries = (entries, call) => (call === 1 ? entries.filter((entry) => entry.Id === '3').map((entry) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError' })) : []);

  await sendMessages('deliveries', Array.from({ length: 5 }, (_, n) => ({ n })));

  expect(batches.map((batch) => batch.entries.map((entry) => entry.MessageBody))).toEqual([
    ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'],
    ['{"n":3}'],
  ]);
});

test('a sender fault is not retried and rejects the send', async () => {
  failEntries = (entries) => [{ Id: entries[0]?.Id ?? '0', SenderFault: true, Code: 'InvalidMessageContents' }];

  await expect(sendMessages('deliveries', [{ n: 1 }])).rejects.toThrow(/InvalidMessageContents/);
  expect(batches).toHaveLength(1);
});

test('an empty list sends nothing', async () => {
  await sendMessages('deliveries', []);

  expect(batches).toHaveLength(0);
});

test('a message group is sent as MessageGroupId on every entry (an SQS fair queue)', async () => {
  await sendMessages('deliveries', Array.from({ length: 12 }, (_, n) => ({ n })), { group: '42' });
  await sendMessages('deliveries', [{ n: 99 }]);

  expect(batches.map((batch) => batch.entries.map((entry) => entry.MessageGroupId))).toEqual([
    Array.from({ length: 10 }, () => '42'),
    ['42', '42'],
    [undefined],
  ]);
});

test('a message group SQS would refuse is rejected before sending', async () => {
  await expect(sendMessages('deliveries', [{ n: 1 }], { group: 'has space' })).rejects.toThrow(/MessageGroupId/);
  await expect(sendMessages('deliveries', [{ n: 1 }], { group: '' })).rejects.toThrow(/MessageGroupId/);
  expect(batches).toHaveLength(0);
});

test('a delay is sent as DelaySeconds on every entry; one SQS would refuse is rejected before sending', async () => {
  await sendMessages('deliveries', Array.from({ length: 11 }, (_, n) => ({ n })), { delaySeconds: 900 });
  await sendMessages('deliveries', [{ n: 99 }], { delaySeconds: 0 });
  await expect(sendMessages('deliveries', [{ n: 1 }], { delaySeconds: 901 })).rejects.toThrow('A message delay is 0 to 900 whole seconds, got 901');
  await expect(sendMessages('deliveries', [{ n: 1 }], { delaySeconds: 1.5 })).rejects.toThrow('A message delay is 0 to 900 whole seconds, got 1.5');

  expect(batches.map((batch) => batch.entries.map((entry) => entry.DelaySeconds))).toEqual([Array.from({ length: 10 }, () => 900), [900], [undefined]]);
});
