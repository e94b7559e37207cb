// `npm run --silent account:create -- --name NAME [--table TABLE [--region REGION]]`: create an account
// and print its keys as one JSON object on stdout. Without --table it writes to the running local
// stack (found through `$DATA_DIR/local-endpoints.json`); with --table, to that deployed table using
// the ordinary AWS credentials.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { optionalEnv } from '../../shared/config';
import { createAccount } from '../../shared/accounts/repository';

// AWS's documented switch for the SDK's Node 20 notice (aws/aws-sdk-js-v3#7983): stderr stays for errors.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const usage = 'usage: npm run --silent account:create -- --name NAME [--table TABLE [--region REGION]]';

interface Target {
  describe: string;
  local: boolean;
}

/** Point the shared configuration at the local stack or at a deployed table. */
function chooseTarget(table: string | undefined, region: string | undefined): Target {
  if (table) {
    delete process.env.DYNAMODB_ENDPOINT;
    Object.assign(process.env, { APP_RUNTIME: 'aws', TABLE_NAME: table }, region ? { AWS_REGION: region } : {});
    // The configuration insists on a signing key on AWS; creating an account signs nothing.
    process.env.TOKEN_SIGNING_KEY ||= 'not-used-by-account-creation';
    return { describe: `table ${table}`, local: false };
  }
  const dataDir = resolve(optionalEnv('DATA_DIR') ?? '.data');
  const endpointsPath = join(dataDir, 'local-endpoints.json');
  if (!existsSync(endpointsPath)) {
    throw new Error(`the local stack is not running (no ${endpointsPath}); start it with npm start, or pass --table for a deployed table`);
  }
  const endpoints = JSON.parse(readFileSync(endpointsPath, 'utf8')) as { dynamodb?: string };
  if (!endpoints.dynamodb) throw new Error(`${endpointsPath} has no dynamodb endpoint`);
  Object.assign(process.env, {
    APP_RUNTIME: 'local',
    TABLE_NAME: optionalEnv('TABLE_NAME') ?? 'email-service-local',
    DYNAMODB_ENDPOINT: endpoints.dynamodb,
    AWS_REGION: region ?? optionalEnv('AWS_REGION') ?? 'us-east-1',
  });
  return { describe: `the local stack's DynamoDB at ${endpoints.dynamodb}`, local: true };
}

function explain(error: Error, target: Target): string {
  const text = `${error.name} ${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}`;
  if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT/.test(text)) {
    return target.local ? `the local stack is not running (${target.describe} does not answer); start it with npm start` : `cannot reach ${target.describe}: ${error.message}`;
  }
  if (error.name === 'ResourceNotFoundException') return `${target.describe}: the table does not exist`;
  return error.message.split('\n')[0] ?? error.name;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: { name: { type: 'string' }, table: { type: 'string' }, region: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}; ${usage}`, { cause: error });
  }
  const name = values.name?.trim();
  if (!name) throw new Error(`--name is required; ${usage}`);
  if (values.region && !values.table) throw new Error(`--region goes with --table; ${usage}`);

  // Before the first table call: the configuration is read from the environment on first use.
  const target = chooseTarget(values.table, values.region);
  try {
    const account = await createAccount(name);
    process.stdout.write(`${JSON.stringify(account)}\n`);
  } catch (error) {
    throw new Error(explain(error as Error, target), { cause: error });
  }
}

main().catch((error: Error) => {
  process.stderr.write(`error: ${error.message}\n`);
  process.exitCode = 1;
});
