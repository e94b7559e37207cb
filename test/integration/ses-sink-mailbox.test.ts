// The SES sink kept in a directory, as the local stack keeps it under DATA_DIR: mail sent through the
// SES v2 client is still in `/store` after a stop and a new start, once; a line torn by a kill is cut
// off; clearing the store clears the file.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mailFileName, startSesSink, type SesSink } from '../../infra/local/ses-sink';

type SinkModule = typeof import('../../infra/local/ses-sink');

let directory: string;
let sink: SesSink | undefined;

async function send(to: string): Promise<void> {
  const client = new SESv2Client({ endpoint: sink?.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    await client.send(
      new SendEmailCommand({
        FromEmailAddress: 'news@acme.example',
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: `Hello ${to}` }, Body: { Text: { Data: 'Hi' } } } },
      }),
    );
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
  sink = await startSesSink({ port: 0, directory });
});

afterEach(async () => {
  await sink?.stop();
  sink = undefined;
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
