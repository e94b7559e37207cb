// The SES sink for the laptop: aws-ses-v2-local in this process. It accepts SES v2 SendEmail, shows
// the mail at `/` and returns it as JSON at `/store`. Given a directory (the local stack gives one under
// DATA_DIR), it keeps the mail there like a mailbox: each mail is appended to a file before SES's
// answer goes out, and a start loads the file, so `/store` still holds the mail from before a restart
// or a crash and a send interrupted by one can be checked from the outside.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import server from 'aws-ses-v2-local';

type SinkStore = typeof import('aws-ses-v2-local/dist/store');
type SinkMail = Parameters<SinkStore['saveEmail']>[0];

// The package keeps its mail in this module's state and its routes call `saveEmail` and `clearStore`
// through the module's exports, so wrapping those two exports is how the mail reaches a file first.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sinkStore = require('aws-ses-v2-local/dist/store') as { -readonly [name in keyof SinkStore]: SinkStore[name] };

export interface SesSink {
  /** The endpoint for the SES client, e.g. `http://127.0.0.1:8005`. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** The file mail is kept in, under the sink's directory: one JSON mail a line. */
export const mailFileName = 'mail.jsonl';

/** Set while a sink keeps its mail in a file (the package's store is one per process). */
let keptIn: string | undefined;

/** Read the kept mail; a last line torn by a kill in the middle of an append is cut off (that mail was never acknowledged). */
function loadMail(file: string): SinkMail[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.length !== text.length) truncateSync(file, Buffer.byteLength(complete));
  return complete
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SinkMail);
}

/** Keep the sink's mail in `directory` from now on, starting from what is already there; returns the undo. */
function keepMailIn(directory: string): () => void {
  if (keptIn !== undefined) throw new Error(`an SES sink in this process already keeps its mail in ${keptIn}`);
  mkdirSync(directory, { recursive: true });
  const file = join(directory, mailFileName);
  const kept = loadMail(file);
  const { saveEmail, clearStore } = sinkStore;
  // The store now holds exactly the kept mail (an earlier sink in this process may have left some).
  clearStore();
  sinkStore.getStoreReadonly().emails.push(...kept);
  const fd = openSync(file, 'a');
  sinkStore.saveEmail = (mail) => {
    // On disk before the route answers: a mail SES acknowledged is never lost to a crash of this process.
    writeSync(fd, `${JSON.stringify(mail)}\n`);
    saveEmail(mail);
  };
  sinkStore.clearStore = () => {
    truncateSync(file, 0);
    clearStore();
  };
  keptIn = directory;
  return () => {
    sinkStore.saveEmail = saveEmail;
    sinkStore.clearStore = clearStore;
    closeSync(fd);
    keptIn = undefined;
  };
}

export async function startSesSink(options: { port: number; host?: string; directory?: string }): Promise<SesSink> {
  const host = options.host ?? '127.0.0.1';
  const stopKeeping = options.directory === undefined ? () => undefined : keepMailIn(options.directory);
  const listener = await server({ host, port: options.port }).catch((error: unknown) => {
    stopKeeping();
    throw error;
  });
  // aws-ses-v2-local resolves even when listen fails, so check that it really listens.
  if (!listener.listening) {
    listener.close();
    stopKeeping();
    throw new Error(`the SES sink could not listen on ${host}:${options.port}`);
  }
  // Node closes an idle keep-alive connection after 5 s; a client that picks that socket from its pool
  // in the same instant gets ECONNRESET, and a mail whose outcome is unknown is, by design, never sent
  // again (shared/sending/deliver.ts). On loopback there is no reason to close idle connections at
  // all, so the sink keeps them until stop() (0 turns the idle timeout off).
  listener.keepAliveTimeout = 0;
  const port = (listener.address() as AddressInfo).port;
  return {
    endpoint: `http://${host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((done) => {
        listener.close(() => {
          stopKeeping();
          done();
        });
        listener.closeAllConnections();
      }),
  };
}
