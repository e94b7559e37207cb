// Test helpers for the local runtime: the whole stack in process on free ports with a temporary
// DATA_DIR (e2e), or a table of one's own on DynamoDB Local (integration).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetConfig } from '../../shared/config';
import type { NewAccount } from '../../shared/accounts/repository';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localDynamoClient, startLocalDynamo } from '../../infra/local/dynamodb';
import { startLocalStack, useLocalJavaSettings, type LocalStack, type LocalStackOptions } from '../../infra/local/local-stack';
import { findFreePort } from '../../infra/local/ports';

export interface TestStack {
  /** The API root, ending in `/api/`. */
  apiUrl: string;
  /** Where links in mail lead: the public links' root, ending in `/links/api/`. */
  publicLinksUrl: string;
  mailStoreUrl: string;
  demoAccount: NewAccount;
  /** Headers that authenticate as the demo account. */
  demoHeaders: Record<string, string>;
  dataDir: string;
  stack: LocalStack;
  /** Stop the stack; the DATA_DIR is removed unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'email-service-e2e-'));
}

/** The whole local stack on free ports, quiet, in a new (or the given) DATA_DIR. */
export async function startTestStack(options: { dataDir?: string } & Omit<LocalStackOptions, 'dataDir'> = {}): Promise<TestStack> {
  const dataDir = options.dataDir ?? newDataDir();
  const stack = await startLocalStack({
    port: 0,
    dynamoPort: 0,
    sesPort: 0,
    quiet: true,
    log: () => undefined,
    ...options,
    // SES's events gathered for 250 ms instead of the deployed 5 s: a test waiting for `delivered`
    // waits for the flow, not the window (the window itself is tested in queue-local.test.ts).
    queue: { maxBatchingWindowMs: 250, ...options.queue },
    // And deliveries buffered by the delivery stream for 250 ms instead of 30 s, for the same reason.
    deliveryBufferMs: options.deliveryBufferMs ?? 250,
    dataDir,
  });
  return {
    apiUrl: stack.urls.api,
    publicLinksUrl: stack.urls.public_links,
    mailStoreUrl: stack.urls.mail_store,
    demoAccount: stack.demoAccount,
    demoHeaders: { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key },
    dataDir,
    stack,
    async stop({ keepData = false } = {}) {
      await stack.stop();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestTable {
  endpoint: string;
  tableName: string;
  stop(): Promise<void>;
}

const localEndpoint = /^http:\/\/(127\.0\.0\.1|localhost):\d+$/;

/**
 * A table of this test file's own, so a poller here never takes another file's jobs. On the
 * DynamoDB Local that the integration project's global setup exported, or on one started here.
 * Points the shared configuration (APP_RUNTIME=local, TABLE_NAME, DYNAMODB_ENDPOINT) at it.
 */
export async function useTestTable(): Promise<TestTable> {
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  let endpoint = process.env.DYNAMODB_ENDPOINT;
  let stopDynamo: () => Promise<void> = async () => undefined;
  if (endpoint) {
    if (!localEndpoint.test(endpoint)) throw new Error(`Tests run only against DynamoDB Local; DYNAMODB_ENDPOINT is '${endpoint}'`);
  } else {
    useLocalJavaSettings();
    const dynamo = await startLocalDynamo({ port: await findFreePort() });
    endpoint = dynamo.endpoint;
    stopDynamo = dynamo.stop;
  }
  await ensureTable(endpoint, tableName);
  Object.assign(process.env, { APP_RUNTIME: 'local', TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint });
  resetConfig();
  return {
    endpoint,
    tableName,
    async stop() {
      resetConfig();
      const client = localDynamoClient(endpoint);
      await client.send(new DeleteTableCommand({ TableName: tableName })).finally(() => client.destroy());
      await stopDynamo();
    },
  };
}

/** Wait until `condition` holds, checking every 25 ms; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
