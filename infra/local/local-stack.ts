// The whole local runtime in one call: DynamoDB Local, the SES sink, the scheduler poller, the queue
// and the gateway, with the environment the handlers read, and a demo account. `npm start` and the
// e2e tests both start it through `startLocalStack`.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { optionalEnv, positiveNumberEnv, resetConfig } from '../../shared/config';
import { defaultClientLimit, minClientLimit, publicLinksPrefix } from '../public-links';
import { createAccount, findCredential, type NewAccount } from '../../shared/accounts/repository';
import { addOutsideIdentity } from '../../shared/identities/local-identities';
import { serviceSenderDomain } from '../../shared/identities/service-domain';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { configureLocalQueue, stopLocalQueues } from '../../shared/queue/local-queue';
import { type LocalQueueSettings } from '../../shared/queue/local-queue-settings';
import { ensureTable, startLocalDynamo, type LocalDynamo } from './dynamodb';
import { startGateway, type Gateway } from './gateway';
import { assertPortsFree, findFreePort, stackPortClaims } from './ports';
import { registerFunctionConsumers } from './queue-consumers';
import { startSchedulerPoller, type SchedulerPoller, type SchedulerPollerOptions } from './scheduler-poller';
import { startSesSink, type SesSink } from './ses-sink';

export const defaultTableName = 'email-service-local';
export const demoAccountFile = 'demo-account.json';
export const endpointsFile = 'local-endpoints.json';

export interface LocalStackOptions {
  /** The gateway's port (default 3000); 0 picks a free one, as do the other two. */
  port?: number;
  dynamoPort?: number;
  sesPort?: number;
  /**
   * An SES sink already running elsewhere (the benchmark's, in a process of its own so that its
   * HTTP server and parsing do not share the pipeline's thread): the stack starts none and the
   * handlers send to this endpoint; `sesPort` is then ignored.
   */
  sesEndpoint?: string;
  /**
   * Where the stack keeps what must survive a stop or a crash (default `.data`): DynamoDB Local's
   * files, the queue's journals (`queues/`), the sink's mail and the delivery stream's records
   * (`ses-sink/`), the buckets' objects (`objects/`), and its JSON files.
   */
  dataDir?: string;
  /**
   * Keep the table, the queue and the sink's mail in memory instead of under `dataDir` (nothing
   * survives a stop). For the benchmark: the on-disk store's writes halve DynamoDB Local's throughput
   * (measured: a 4,000-recipient send at 169 mails/s on disk, 314 in memory), which is not what it measures.
   */
  inMemory?: boolean;
  tableName?: string;
  region?: string;
  /** No per-request log lines. */
  quiet?: boolean;
  log?: (line: string) => void;
  /**
   * Requests per minute one client address may make to the public links (`/links/api/`), as the WAF
   * rate rule deployed; default PUBLIC_CLIENT_LIMIT, else the deployed default.
   */
  publicClientLimit?: number;
  scheduler?: Omit<SchedulerPollerOptions, 'log'>;
  queue?: Partial<Omit<LocalQueueSettings, 'log'>>;
  /** The delivery stream's buffering interval (infra/ses-delivery-stream.ts: `localDeliveryBufferMs` unless set). */
  deliveryBufferMs?: number;
}

/** `$DATA_DIR/local-endpoints.json`: how scripts find the running stack. */
export interface LocalEndpoints {
  api: string;
  /** Where links in mail lead: the stand-in of the public links' REST API, behind the per-client-address limit. */
  public_links: string;
  mail_viewer: string;
  mail_store: string;
  dynamodb: string;
}

export interface LocalStack {
  urls: LocalEndpoints;
  ports: { api: number; dynamodb: number; ses: number };
  demoAccount: NewAccount;
  dataDir: string;
  tableName: string;
  /** Milliseconds from the call to ready. */
  readyMs: number;
  stop(): Promise<void>;
}

// Java children of stacks in this process, so an exit path that skips stop() can still kill them.
const javaChildren = new Set<ChildProcess>();

/** Kill every DynamoDB Local this process started (synchronous, for `process.on('exit')`). */
export function killJavaChildren(): void {
  for (const child of javaChildren) child.kill('SIGKILL');
  javaChildren.clear();
}

/**
 * DynamoDB Local runs with telemetry off and a bounded heap; the Java child inherits this environment.
 * C1-only JIT and the serial collector halve the JVM's start on a small machine (measured: about 5 s
 * to 2.5 s on 2 busy cores), and a local table never needs peak throughput.
 */
export function useLocalJavaSettings(): void {
  process.env.DDB_LOCAL_TELEMETRY = '0';
  process.env.JAVA_TOOL_OPTIONS = '-Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
}

/** Two stacks on one DATA_DIR would share DynamoDB Local's database file; refuse the second. */
async function assertDataDirFree(dataDir: string): Promise<void> {
  const file = join(dataDir, endpointsFile);
  if (!existsSync(file)) return;
  const { api } = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalEndpoints>;
  if (!api) return;
  // A file left by a stack that was killed is stale: nothing answers at its address.
  const answer = await fetch(new URL('/_local/health', api), { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
  if (answer?.ok) throw new Error(`a local stack is already running on ${dataDir} (${api}); stop it or set DATA_DIR`);
}

async function resolvePort(requested: number): Promise<number> {
  return requested === 0 ? findFreePort() : requested;
}

/** Reuse the demo account recorded in `dataDir` while its key still resolves, else create one. */
async function demoAccount(dataDir: string, log: (line: string) => void): Promise<NewAccount> {
  const file = join(dataDir, demoAccountFile);
  if (existsSync(file)) {
    const recorded = JSON.parse(readFileSync(file, 'utf8')) as NewAccount;
    if (await findCredential(recorded.public_key)) return recorded;
    log(`${file} names an account the table does not have; creating a new demo account`);
  }
  const account = await createAccount('Demo');
  writeFileSync(file, `${JSON.stringify(account, null, 2)}\n`);
  return account;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const dataDir = resolve(options.dataDir ?? '.data');
  const tableName = options.tableName ?? defaultTableName;
  const region = options.region ?? optionalEnv('AWS_REGION') ?? 'us-east-1';

  // Every port is checked before Java starts, so a clash costs milliseconds, not a JVM start.
  // (startLocalDynamo checks that Java is installed, also before spawning it.)
  const apiPort = await resolvePort(options.port ?? 3000);
  const dynamoPort = await resolvePort(options.dynamoPort ?? 8000);
  const external = options.sesEndpoint === undefined ? undefined : new URL(options.sesEndpoint);
  const sesPort = external ? Number(external.port) : await resolvePort(options.sesPort ?? 8005);
  await assertDataDirFree(dataDir);
  await assertPortsFree(stackPortClaims(apiPort, dynamoPort, sesPort).filter((claim) => !external || claim.port !== sesPort));
  mkdirSync(dataDir, { recursive: true });

  const cleanups: Array<() => Promise<void> | void> = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`error while stopping: ${(error as Error).message}`);
      }
    }
  };

  try {
    useLocalJavaSettings();
    // The buckets' objects (the delivery stream's) are files here, for the stand-in that writes them
    // and the function that reads them (shared/object-store/).
    process.env.OBJECT_STORE_DIR = join(dataDir, 'objects');
    resetConfig();
    const dynamoStart = startLocalDynamo({ port: dynamoPort, dataDir: options.inMemory ? undefined : dataDir });
    const sinkStart: Promise<Pick<SesSink, 'endpoint' | 'stop' | 'publishKeptEvents'>> = external
      ? Promise.resolve({ endpoint: external.origin, stop: async () => undefined, publishKeptEvents: () => undefined })
      : startSesSink({
          port: sesPort,
          directory: options.inMemory ? undefined : join(dataDir, 'ses-sink'),
          ...(options.deliveryBufferMs === undefined ? {} : { deliveryBufferMs: options.deliveryBufferMs }),
        });
    const [dynamoResult, sinkResult] = await Promise.allSettled([dynamoStart, sinkStart]);
    if (dynamoResult.status === 'fulfilled') {
      const dynamo: LocalDynamo = dynamoResult.value;
      javaChildren.add(dynamo.process);
      cleanups.push(async () => {
        await dynamo.stop();
        javaChildren.delete(dynamo.process);
      });
    }
    if (sinkResult.status === 'fulfilled') {
      const sink = sinkResult.value;
      cleanups.push(() => sink.stop());
    }
    if (dynamoResult.status === 'rejected') throw dynamoResult.reason;
    if (sinkResult.status === 'rejected') throw sinkResult.reason;
    const dynamoEndpoint = dynamoResult.value.endpoint;
    const sesEndpoint = sinkResult.value.endpoint;

    await ensureTable(dynamoEndpoint, tableName);

    // The handlers run in this process and read their settings from the environment, as on Lambda.
    Object.assign(process.env, {
      APP_RUNTIME: 'local',
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      SES_ENDPOINT: sesEndpoint,
      // Links lead to the public links' stand-in, as deployed they lead to the REST API behind WAF.
      PUBLIC_BASE_URL: `http://localhost:${apiPort}${publicLinksPrefix}`,
      AWS_REGION: region,
    });
    // A new configuration: the AWS clients are rebuilt for these endpoints on their next use.
    resetConfig();
    cleanups.push(() => resetConfig());
    // Countries, states and cities, which contacts and senders validate against (a no-op once seeded).
    await seedReferenceData();
    // The service's own sender domain, verified outside every account as the stack makes it deployed.
    await addOutsideIdentity(serviceSenderDomain());

    // Consumers first: opening the journals hands the messages kept from the last run to them.
    const unregisterConsumers = registerFunctionConsumers();
    cleanups.push(async () => {
      // The sink stops once the last deliveries are done with it, before the journals close: the
      // events of the mail it took last are kept in the ses-events queue's for the next start.
      await stopLocalQueues(undefined, () => sinkResult.value.stop());
      unregisterConsumers();
    });
    configureLocalQueue({ ...options.queue, log: (line) => console.error(line), ...(options.inMemory ? {} : { directory: join(dataDir, 'queues') }) });
    // The SES events of mail the sink took before a crash, now that the ses-events queue keeps its journal.
    sinkResult.value.publishKeptEvents();
    // Stopped before the queue: a job firing during shutdown may still put messages on it.
    const poller: SchedulerPoller = startSchedulerPoller({ ...options.scheduler, log: (line) => console.error(line) });
    cleanups.push(() => poller.stop());

    const clientLimit = options.publicClientLimit ?? positiveNumberEnv('PUBLIC_CLIENT_LIMIT', defaultClientLimit, { integer: true });
    if (clientLimit < minClientLimit) throw new Error(`PUBLIC_CLIENT_LIMIT must be at least ${minClientLimit} (WAF's lowest), got ${clientLimit}`);
    const gateway: Gateway = await startGateway({ port: apiPort, quiet: options.quiet, log, clientLimit });
    cleanups.push(() => gateway.close());

    const account = await demoAccount(dataDir, log);
    const urls: LocalEndpoints = {
      api: `http://localhost:${apiPort}/api/`,
      public_links: `http://localhost:${apiPort}${publicLinksPrefix}`,
      mail_viewer: `http://localhost:${sesPort}/`,
      mail_store: `http://localhost:${sesPort}/store`,
      dynamodb: `http://localhost:${dynamoPort}`,
    };
    const endpointsPath = join(dataDir, endpointsFile);
    writeFileSync(endpointsPath, `${JSON.stringify(urls, null, 2)}\n`);
    // Removed first on stop, so scripts see at once that the stack is gone.
    cleanups.push(() => rmSync(endpointsPath, { force: true }));

    return {
      urls,
      ports: { api: apiPort, dynamodb: dynamoPort, ses: sesPort },
      demoAccount: account,
      dataDir,
      tableName,
      readyMs: Math.round(performance.now() - started),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
