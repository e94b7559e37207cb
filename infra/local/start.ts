// `npm start`: the whole service on this machine. Reads PORT, DATA_DIR, DYNAMODB_PORT, SES_PORT,
// TABLE_NAME, PUBLIC_CLIENT_LIMIT and DELIVERY_STREAM_INTERVAL_MS (the delivery stream's buffering
// interval: 5 s unless set; 30000 behaves as deployed), prints where everything is and the demo keys, and stops everything on Ctrl+C.
import { optionalEnv, positiveNumberEnv } from '../../shared/config';
import { localDeliveryBufferMs } from '../ses-delivery-stream';
import type { LocalStack } from './local-stack';
import { assertPortsFree, stackPortClaims } from './ports';


function portFromEnv(name: string, fallback: number): number {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number, got '${raw}'`);
  return port;
}

function banner(stack: LocalStack, readySeconds: string): string {
  const { urls, demoAccount } = stack;
  const curl = `curl -H 'PublicKey: ${demoAccount.public_key}' -H 'SecretKey: ${demoAccount.secret_key}' ${urls.api}contacts-type`;
  return [
    '',
    `Email service running locally (ready in ${readySeconds} s)`,
    `  API           ${urls.api}`,
    `  Public links  ${urls.public_links}  (mail links; per client address limit)`,
    `  Mail viewer   ${urls.mail_viewer}`,
    `  DynamoDB      ${urls.dynamodb}  (data in ${stack.dataDir})`,
    `  Demo account  ${demoAccount.account_id}`,
    `    PublicKey   ${demoAccount.public_key}`,
    `    SecretKey   ${demoAccount.secret_key}`,
    '',
    `  ${curl}`,
    '',
    'Ctrl+C stops everything.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const ports = { api: portFromEnv('PORT', 3000), dynamodb: portFromEnv('DYNAMODB_PORT', 8000), ses: portFromEnv('SES_PORT', 8005) };
  // Checked before the AWS SDK and the handlers load (seconds on a busy machine), so a clash is
  // reported at once; startLocalStack checks again, for callers that start it directly.
  await assertPortsFree(stackPortClaims(ports.api, ports.dynamodb, ports.ses).filter((claim) => claim.port !== 0));
  const { killJavaChildren, startLocalStack } = await import('./local-stack.js');
  // Whatever way this process ends, no DynamoDB Local outlives it.
  process.on('exit', killJavaChildren);

  const running: { stack?: LocalStack; stopRequested?: string } = {};
  const stopAndExit = (stack: LocalStack) =>
    stack
      .stop()
      .then(() => process.exit(0))
      .catch((error: Error) => {
        console.error(`error: ${error.message}`);
        process.exit(1);
      });
  const shutdown = (signal: string) => {
    // A second signal means "now": the exit hook still kills the Java child it knows of.
    if (running.stopRequested) process.exit(130);
    running.stopRequested = signal;
    console.log(`\n${signal}: stopping`);
    // While starting, DynamoDB Local may be spawned but not yet known here; stop once startup settles.
    if (running.stack) void stopAndExit(running.stack);
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const stack = await startLocalStack({
    port: ports.api,
    dynamoPort: ports.dynamodb,
    sesPort: ports.ses,
    dataDir: optionalEnv('DATA_DIR') ?? '.data',
    tableName: optionalEnv('TABLE_NAME'),
    quiet: optionalEnv('QUIET') === '1',
    deliveryBufferMs: positiveNumberEnv('DELIVERY_STREAM_INTERVAL_MS', localDeliveryBufferMs, { integer: true }),
  });
  running.stack = stack;
  if (running.stopRequested) return void stopAndExit(stack);
  console.log(banner(stack, process.uptime().toFixed(1)));
}

main().catch((error: Error) => {
  // startLocalStack has already stopped whatever it started; this is the one line the user sees.
  console.error(`error: ${error.message.split('\n')[0]}`);
  process.exit(1);
});
