// The SES sink for the laptop: aws-ses-v2-local in this process. It accepts SES v2 SendEmail, shows
// the mail at `/` and returns it as JSON at `/store`. Given a directory (the local stack gives one under
// DATA_DIR), it keeps the mail there like a mailbox: each mail is appended to a file before SES's
// answer goes out, and a start loads the file, so `/store` still holds the mail from before a restart
// or a crash and a send interrupted by one can be checked from the outside.
//
// Every mail it accepts brings the events SES would publish for it, in SES's shape, where the deployed
// stack routes them, once SendEmail has answered (deliveries through the delivery stream's stand-in,
// local-firehose.ts, the others straight to the ses-events queue, whose consumer is ses-events): a Delivery for an ordinary address, and SES's mailbox simulator outcomes for
// `bounce@simulator.amazonses.com` and the other simulator addresses (see ses-simulator.ts). Given a
// directory, it keeps those events there too until the queue has them (ses-event-journal.ts): those
// a crash left behind go out after the restart.
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import server from 'aws-ses-v2-local';
import { localSesEventBucket, optionalEnv, resetConfig } from '../../shared/config';
import { enqueueLocal, localQueueIdle } from '../../shared/queue/local-queue';
import { serializeBodies } from '../../shared/queue/queues';
import { deliveryBufferBytes, deliveryEventsPrefix, localDeliveryBufferMs } from '../ses-delivery-stream';
import { startLocalFirehose, type LocalFirehose } from './local-firehose';
import { sesEventsQueue, startSesEventFeed, toSesEventTargets, type SesEventFeed, type SesEventTarget } from './ses-event-feed';
import { openSesEventJournal, type SesEventJournal } from './ses-event-journal';
import { eventBridgeEvent, simulatedEvents, type SimulatedMail, type SimulatorOrigin } from './ses-simulator';
import { refusePausedTenants } from './ses-tenant-pause';

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
  /**
   * Resolves once the SES events of every mail taken so far were applied by the ses-events function
   * (or parked, or dead-lettered by its queue); with a target of one's own, once that target has them.
   */
  eventsIdle(): Promise<void>;
  /**
   * Publish the events kept in the directory that never reached the queue (a crash came first),
   * once: call when the queue keeps its journal (the local stack does once its handlers are set up).
   */
  publishKeptEvents(): void;
  stop(): Promise<void>;
}

export interface SesSinkOptions {
  port: number;
  host?: string;
  /** Keep the mail and its SES events in this directory (see above); in memory only when left out. */
  directory?: string;
  /**
   * Where the SES events of the accepted mail go: by default the local ses-events queue, whose
   * consumer is the ses-events function (the local runtime's configuration); false publishes none.
   */
  events?: SesEventTarget | false;
  /** Waits before retrying an event its target refused (default 200 ms, then 1 s). */
  eventRetryDelaysMs?: readonly number[];
  /**
   * The delivery stream's buffering interval with the default target (`localDeliveryBufferMs` unless
   * set); its buffering size is the deployed one.
   */
  deliveryBufferMs?: number;
  /**
   * False: a paused tenant's mail is not refused, and no tenant is read. For a sink with no table to
   * read tenants from (the send benchmarks' sink process), where SES would check its tenants itself.
   * The check is installed for the whole process by the first sink that plays pauses.
   */
  tenantPauses?: false;
  log?: (line: string) => void;
}

/** The file mail is kept in, under the sink's directory: one JSON mail a line. */
export const mailFileName = 'mail.jsonl';

/**
 * The mail the store saved last. The package's routes save a mail and answer its call in one
 * synchronous step, so while a SendEmail answer is being written this is that call's mail (its
 * message id is checked too). The saved mail lacks the call's EmailTags, which SES puts on every
 * event (`send_ref` among them): they are read from the call's parsed body when it is answered.
 */
let justSaved: SinkMail | undefined;
{
  const { saveEmail } = sinkStore;
  sinkStore.saveEmail = (mail) => {
    saveEmail(mail);
    justSaved = mail;
  };
}

/** SES v2 SendEmail, the call the service makes (shared/mail/mailer.ts). */
const sendEmailPath = '/v2/email/outbound-emails';

/** The SendEmail call's mail as its events need it; only SES v2 SendEmail carries EmailTags. */
function simulatedMail(mail: SinkMail, body: unknown): SimulatedMail {
  const { EmailTags, ConfigurationSetName } = (typeof body === 'object' && body !== null ? body : {}) as { EmailTags?: unknown; ConfigurationSetName?: unknown };
  const emailTags = Array.isArray(EmailTags)
    ? EmailTags.filter((tag): tag is { Name: string; Value: string } => typeof tag?.Name === 'string' && typeof tag?.Value === 'string')
    : [];
  return {
    messageId: mail.messageId,
    source: mail.from,
    destination: [...mail.destination.to, ...mail.destination.cc, ...mail.destination.bcc],
    subject: mail.subject,
    emailTags,
    ...(typeof ConfigurationSetName === 'string' ? { configurationSetName: ConfigurationSetName } : {}),
    sentAt: new Date(),
  };
}

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

/**
 * The object store's directory (OBJECT_STORE_DIR), where the ses-events function reads the stream's
 * objects; one is made, for as long as the sink runs, when the environment names none.
 */
// Read by name, not through config(): the local stack starts the sink before the table's settings exist.
function objectRoot(): { root: string; remove: () => void } {
  const named = optionalEnv('OBJECT_STORE_DIR');
  if (named !== undefined) return { root: named, remove: () => undefined };
  const root = mkdtempSync(join(tmpdir(), 'email-service-objects-'));
  process.env.OBJECT_STORE_DIR = root;
  resetConfig();
  return {
    root,
    remove: () => {
      rmSync(root, { recursive: true, force: true });
      if (process.env.OBJECT_STORE_DIR === root) delete process.env.OBJECT_STORE_DIR;
      resetConfig();
    },
  };
}

/** The delivery stream's stand-in: its objects announced on the local ses-events queue, as S3 and EventBridge do deployed. */
function deliveryStream(options: SesSinkOptions, log: (line: string) => void): { stream: LocalFirehose; close: () => void } {
  const objects = objectRoot();
  try {
    const stream = startLocalFirehose({
      ...(options.directory === undefined ? {} : { directory: join(options.directory, 'delivery-stream') }),
      objectRoot: objects.root,
      bucket: optionalEnv('SES_EVENT_BUCKET') ?? localSesEventBucket,
      prefix: deliveryEventsPrefix,
      streamName: 'ses-delivery-events',
      bufferBytes: deliveryBufferBytes,
      intervalMs: options.deliveryBufferMs ?? localDeliveryBufferMs,
      region: optionalEnv('AWS_REGION') ?? 'us-east-1',
      announce: (event) => enqueueLocal(sesEventsQueue, serializeBodies(sesEventsQueue, [event])),
      // Records kept before a crash wait, like the sink's kept events, until the queue keeps its journal.
      held: options.directory !== undefined,
      log,
    });
    return {
      stream,
      close: () => {
        stream.stop();
        objects.remove();
      },
    };
  } catch (error) {
    objects.remove();
    throw error;
  }
}

export async function startSesSink(options: SesSinkOptions): Promise<SesSink> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line: string) => console.error(line));
  const stopKeepingMail = options.directory === undefined ? () => undefined : keepMailIn(options.directory);
  let journal: SesEventJournal | undefined;
  let delivery: ReturnType<typeof deliveryStream> | undefined;
  try {
    journal = options.events === false || options.directory === undefined ? undefined : openSesEventJournal(options.directory);
    delivery = options.events === undefined ? deliveryStream(options, log) : undefined;
  } catch (error) {
    journal?.close();
    stopKeepingMail();
    throw error;
  }
  const target: SesEventTarget | false = options.events ?? toSesEventTargets((delivery as { stream: LocalFirehose }).stream);
  // The default target's work ends when the stream has flushed and the queue's consumer has applied the events.
  const applied =
    delivery === undefined
      ? async () => undefined
      : async () => {
          await delivery.stream.idle();
          await localQueueIdle(sesEventsQueue);
        };
  const stopKeeping = () => {
    delivery?.close();
    journal?.close();
    stopKeepingMail();
  };
  // A paused tenant's mail is refused as SES refuses it (ses-tenant-pause.ts).
  if (options.tenantPauses !== false) refusePausedTenants(log);
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
  // again (shared/delivery/deliver.ts). On loopback there is no reason to close idle connections at
  // all, so the sink keeps them until stop() (0 turns the idle timeout off).
  listener.keepAliveTimeout = 0;
  const feed: SesEventFeed | undefined =
    target === false
      ? undefined
      : startSesEventFeed({
          target,
          log,
          ...(options.eventRetryDelaysMs ? { retryDelaysMs: options.eventRetryDelaysMs } : {}),
          ...(journal ? { settled: journal.settled } : {}),
        });
  let keptPublished = false;
  if (feed) {
    // Runs before the package's app (the server's other request listener) takes the call.
    listener.prependListener('request', (request: IncomingMessage & { body?: unknown }, response: ServerResponse) => {
      if (request.method !== 'POST' || request.url?.split('?')[0] !== sendEmailPath) return;
      const end = response.end;
      response.end = function (this: ServerResponse, ...args: unknown[]) {
        const mail = justSaved;
        justSaved = undefined;
        const answer = typeof args[0] === 'string' || Buffer.isBuffer(args[0]) ? String(args[0]) : '';
        if (mail && response.statusCode === 200 && answer.includes(mail.messageId)) {
          const origin: SimulatorOrigin = { region: optionalEnv('AWS_REGION') ?? 'us-east-1', account: '000000000000' };
          const events = simulatedEvents(simulatedMail(mail, request.body), origin).map((detail) => eventBridgeEvent(detail, origin));
          // On disk before the answer, as the mail is; published once the answer is on the way, or
          // its connection is gone: SES publishes for a mail it took whether or not its answer arrived.
          journal?.keep(events);
          response.once('close', () => feed.publish(events));
        }
        return (end as (...endArgs: unknown[]) => ServerResponse).apply(this, args);
      } as ServerResponse['end'];
    });
  }
  const port = (listener.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  return {
    endpoint: `http://${host}:${port}`,
    port,
    eventsIdle: async () => {
      if (!feed) return;
      await feed.idle();
      await applied();
    },
    publishKeptEvents: () => {
      if (keptPublished || !feed || !journal) return;
      keptPublished = true;
      feed.publish(journal.unsettled);
      delivery?.stream.release();
    },
    // Once, however often it is called: the local stack stops it while its queue closes, and again on the way out.
    stop: () =>
      (stopped ??= new Promise<void>((done) => {
        listener.close(() => {
          // The mail taken before the stop still brings its events: bounces into the queue's journal when
          // it keeps one, deliveries into the stream's, flushed by the next start.
          void (feed?.stop() ?? Promise.resolve()).finally(() => {
            stopKeeping();
            done();
          });
        });
        listener.closeAllConnections();
      })),
  };
}
