// The SES sink kept in a directory, as the local stack keeps it under DATA_DIR: mail sent through the
// SES v2 client is still in `/store` after a stop and a new start, once; a line torn by a kill is cut
// off; clearing the store clears the file. The SES events of mail taken before a kill -9 still reach
// their target (the ses-events queue) after the restart, once.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { eventsFileName } from '../../infra/local/ses-event-journal';
import { mailFileName, startSesSink, type SesSink } from '../../infra/local/ses-sink';
import type { SesEventBridgeEvent } from '../../infra/local/ses-simulator';
import { configureLocalQueue, stopLocalQueues } from '../../shared/queue/local-queue';
import { waitFor } from '../support/local-stack';
import { testBatchingWindowMs } from '../support/senders';

const repoRoot = join(__dirname, '../..');

type SinkModule = typeof import('../../infra/local/ses-sink');

let directory: string;
let sink: SesSink | undefined;

async function send(to: string, endpoint = sink?.endpoint): Promise<string | undefined> {
  const client = new SESv2Client({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const { MessageId } = await client.send(
      new SendEmailCommand({
        FromEmailAddress: 'news@acme.example',
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: `Hello ${to}` }, Body: { Text: { Data: 'Hi' } } } },
        EmailTags: [{ Name: 'send_ref', Value: 'ref-1' }],
      }),
    );
    return MessageId;
  } finally {
    client.destroy();
  }
}

async function storedRecipients(): Promise<string[]> {
  const store = (await (await fetch(`${sink?.endpoint}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
  return store.emails.map((mail) => mail.destination.to[0] as string);
}

/** Stop the sink and start it again as a new process would: with the package's in-memory store fresh. */
async function restart(): Promise<void> {
  await sink?.stop();
  let fresh: SinkModule | undefined;
  jest.isolateModules(() => {
    fresh = jest.requireActual<SinkModule>('../../infra/local/ses-sink');
  });
  sink = await (fresh as SinkModule).startSesSink({ port: 0, directory });
}

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'ses-sink-'));
  // Its events go to the local ses-events queue (and are ignored there: their send_ref names nothing).
  configureLocalQueue({ maxBatchingWindowMs: testBatchingWindowMs });
  sink = await startSesSink({ port: 0, directory });
});

afterEach(async () => {
  await sink?.stop();
  sink = undefined;
  await stopLocalQueues();
  rmSync(directory, { recursive: true, force: true });
});

test('mail from before a restart is still in the store, once', async () => {
  await send('ada@example.com');
  await send('bob@example.com');

  await restart();
  await send('cy@example.com');

  expect(await storedRecipients()).toEqual(['ada@example.com', 'bob@example.com', 'cy@example.com']);
});

test('a last line torn by a kill is cut off; the mail before and after it is kept', async () => {
  await send('ada@example.com');
  await sink?.stop();
  appendFileSync(join(directory, mailFileName), '{"messageId":"torn","from":"ne');
  sink = undefined;
  await restart();

  await send('bob@example.com');
  await restart();

  expect(await storedRecipients()).toEqual(['ada@example.com', 'bob@example.com']);
});

test('clearing the store clears the kept mail', async () => {
  await send('ada@example.com');

  await fetch(`${sink?.endpoint}/clear-store`, { method: 'POST' });
  await restart();

  expect(await storedRecipients()).toEqual([]);
  expect(readFileSync(join(directory, mailFileName), 'utf8')).toBe('');
});

test('one process keeps one mailbox: a second sink with a directory is refused while the first runs', async () => {
  await expect(startSesSink({ port: 0, directory: join(directory, 'other') })).rejects.toThrow(/already keeps its mail in/);
});

test('the SES events of mail taken before a kill -9 reach the feedback function after the restart, once', async () => {
  // Prepare: a sink of its own process takes 3 mails; its feedback function never finishes, so no event is applied when it is killed.
  await sink?.stop();
  sink = undefined;
  // Node itself with tsx's loader, so the kill reaches the process that holds the sink.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/ses-sink-child.ts', directory], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  await waitFor(() => output.includes('\n'), 20_000, 'the sink in the child');
  const endpoint = /^endpoint (\S+)$/m.exec(output)?.[1];
  const messageIds = [await send('ada@example.com', endpoint), await send('bob@example.com', endpoint), await send('cy@example.com', endpoint)];
  child.kill('SIGKILL');
  await exited;

  // Act: the sink starts again on the directory; its events go out once the feedback function can run.
  const published: SesEventBridgeEvent[] = [];
  sink = await startSesSink({ port: 0, directory, events: async (event) => void published.push(event) });
  await sink.eventsIdle();
  const beforePublishing = published.length;
  sink.publishKeptEvents();
  await sink.eventsIdle();

  // Assess: each mail's Delivery, once; nothing is left to publish after the next restart.
  expect(beforePublishing).toBe(0);
  expect(published.map((event) => [event['detail-type'], event.detail.mail.messageId, event.detail.delivery?.recipients])).toEqual([
    ['Email Delivered', messageIds[0], ['ada@example.com']],
    ['Email Delivered', messageIds[1], ['bob@example.com']],
    ['Email Delivered', messageIds[2], ['cy@example.com']],
  ]);
  expect(readFileSync(join(directory, eventsFileName), 'utf8')).toBe('');
  await sink.stop();
  sink = await startSesSink({ port: 0, directory, events: async (event) => void published.push(event) });
  sink.publishKeptEvents();
  await sink.eventsIdle();
  expect(published).toHaveLength(3);
}, 30_000);

test('an event parked at a stop (the feedback function failed it) is not published again after the next start', async () => {
  await sink?.stop();
  const published: SesEventBridgeEvent[] = [];
  // The feedback function fails every attempt: at the stop the event gets its last one, then is parked.
  sink = await startSesSink({ port: 0, directory, events: async () => Promise.reject(new Error('not yet')), eventRetryDelaysMs: [60_000], log: () => undefined });
  await send('ada@example.com');
  await sink.stop();
  sink = await startSesSink({ port: 0, directory, events: async (event) => void published.push(event) });
  sink.publishKeptEvents();
  await sink.eventsIdle();

  // Parked, as Lambda parks an event in the dead-letter queue after its retries: not published again.
  expect(published).toEqual([]);
});
