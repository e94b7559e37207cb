// `npx tsx infra/scripts/seed-reference-data.ts [--table TABLE [--region REGION]]`: load countries,
// states and cities into the table (a no-op when it already holds this version) and print the result
// as JSON. Without --table it seeds the running local stack (found through
// `$DATA_DIR/local-endpoints.json`); with --table, that deployed table with the ordinary AWS credentials.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { optionalEnv } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';

const usage = 'usage: npx tsx infra/scripts/seed-reference-data.ts [--table TABLE [--region REGION]]';

/** Point the shared configuration at a deployed table, or at the local stack's DynamoDB. */
function chooseTable(table: string | undefined, region: string | undefined): void {
  if (table) {
    delete process.env.DYNAMODB_ENDPOINT;
    Object.assign(process.env, { APP_RUNTIME: 'aws', TABLE_NAME: table }, region ? { AWS_REGION: region } : {});
    return;
  }
  const endpointsPath = join(resolve(optionalEnv('DATA_DIR') ?? '.data'), 'local-endpoints.json');
  if (!existsSync(endpointsPath)) throw new Error(`the local stack is not running (no ${endpointsPath}); start it with npm start, or pass --table`);
  const { dynamodb } = JSON.parse(readFileSync(endpointsPath, 'utf8')) as { dynamodb?: string };
  if (!dynamodb) throw new Error(`${endpointsPath} has no dynamodb endpoint`);
  Object.assign(process.env, {
    APP_RUNTIME: 'local',
    TABLE_NAME: optionalEnv('TABLE_NAME') ?? 'email-service-local',
    DYNAMODB_ENDPOINT: dynamodb,
    AWS_REGION: region ?? optionalEnv('AWS_REGION') ?? 'us-east-1',
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { table: { type: 'string' }, region: { type: 'string' } }, strict: true });
  if (values.region && !values.table) throw new Error(`--region goes with --table; ${usage}`);
  chooseTable(values.table, values.region);
  const started = Date.now();
  const result = await seedReferenceData();
  process.stdout.write(`${JSON.stringify({ ...result, milliseconds: Date.now() - started })}\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`error: ${error.message.split('\n')[0]}\n`);
  process.exitCode = 1;
});
