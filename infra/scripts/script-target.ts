// What operator scripts share: pointing the configuration at the running local stack (through
// `$DATA_DIR/local-endpoints.json`) or at a deployed table (the ordinary AWS credentials), and
// turning a failed table call into one line that says what to do.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { optionalEnv } from '../../shared/config';


export interface Target {
  describe: string;
  local: boolean;
}

/**
 * Point the shared configuration at the local stack or at a deployed table. Call it before the first
 * table call: the configuration is read from the environment on first use.
 */
export function chooseTarget(table: string | undefined, region: string | undefined): Target {
  if (table) {
    delete process.env.DYNAMODB_ENDPOINT;
    Object.assign(process.env, { APP_RUNTIME: 'aws', TABLE_NAME: table }, region ? { AWS_REGION: region } : {});
    // The configuration insists on a signing key on AWS; these scripts sign nothing.
    process.env.TOKEN_SIGNING_KEY ||= 'not-used-by-account-scripts';
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

/** One line for a failed table call: the stack is down, the table is missing, or the SDK's own first line. */
export function explain(error: Error, target: Target): string {
  const text = `${error.name} ${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}`;
  if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT/.test(text)) {
    return target.local ? `the local stack is not running (${target.describe} does not answer); start it with npm start` : `cannot reach ${target.describe}: ${error.message}`;
  }
  if (error.name === 'ResourceNotFoundException') return `${target.describe}: the table does not exist`;
  return error.message.split('\n')[0] ?? error.name;
}

/**
 * Run a script's main: errors become one `error: ...` line on stderr and exit code 1. Its stdout is
 * one JSON answer for other programs to read, so the service's log lines (which go to stdout, as
 * Lambda wants them) are off unless LOG_LEVEL asks for them.
 */
export function runScript(main: () => Promise<void>): void {
  process.env.LOG_LEVEL ??= 'silent';
  main().catch((error: Error) => {
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
  });
}
