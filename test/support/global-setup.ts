// Integration tests share one DynamoDB Local (in memory) for the run, with one table per jest worker
// (test-table.ts); each test makes its own accounts.
import { createServer } from 'node:net';
import type { Config } from '@jest/types';
import { ensureTable, startLocalDynamo, type LocalDynamo } from '../../infra/local/dynamodb';
import { useLocalJavaSettings } from '../../infra/local/local-stack';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { workerTable } from './test-table';


export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // The JVM settings of every local DynamoDB (C1 only, the serial collector): here too, C2's compiler
  // threads cost more than they win back over a run of the suite on 2 cores (measured on two batches of
  // five integration files: 86 s of CPU instead of 98, and 79 instead of 139).
  useLocalJavaSettings();
  const dynamo = await startLocalDynamo({ port: await freePort() });
  (globalThis as { __localDynamo?: LocalDynamo }).__localDynamo = dynamo;
  // Workers start after this and inherit the environment.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.APP_RUNTIME = 'local';
  // Countries, states and cities, which contacts and senders validate against: seeded once per table.
  for (let worker = 1; worker <= Math.max(1, globalConfig.maxWorkers); worker++) {
    const table = workerTable(String(worker));
    await ensureTable(dynamo.endpoint, table);
    process.env.TABLE_NAME = table;
    resetConfig();
    await seedReferenceData();
  }
  delete process.env.TABLE_NAME;
  resetConfig();
}
