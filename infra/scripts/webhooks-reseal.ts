// `npm run --silent webhooks:reseal -- [--from-account N] [--table TABLE --token-key-secret ARN --webhook-key-secret ARN [--region REGION]]`:
// re-seal the webhook secrets stored sealed under the token-signing key with the webhook secret key,
// once, after the upgrade that brought that key (docs/operations.md). Without --table it works on the
// running local stack with the local keys; with --table, on that deployed table, reading both keys
// from their secrets (the stack's TokenSigningKeySecretArn and WebhookSecretKeySecretArn outputs)
// with the ordinary AWS credentials. It prints `{"accounts":{"first":1,"last":N},"resealed":N,"unreadable":[...]}`.
import { parseArgs } from 'node:util';
import { loadSecrets, tokenSigningKeySecretArnEnvName, webhookSecretKeySecretArnEnvName } from '../../shared/secrets';
import { resealLegacySecrets } from '../../shared/webhooks/webhook-reseal-service';
import { chooseTarget, explain, runScript } from './script-target';

const usage =
  'usage: npm run --silent webhooks:reseal -- [--from-account N] [--table TABLE --token-key-secret ARN --webhook-key-secret ARN [--region REGION]]';

function usageError(message: string, cause?: unknown): Error {
  return new Error(`${message}; ${usage}`, { cause });
}

function parse(): { table?: string; region?: string; tokenKeySecret?: string; webhookKeySecret?: string; fromAccount: number } {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        table: { type: 'string' },
        region: { type: 'string' },
        'token-key-secret': { type: 'string' },
        'webhook-key-secret': { type: 'string' },
        'from-account': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
  const fromAccount = Number(values['from-account'] ?? 1);
  if (!Number.isSafeInteger(fromAccount) || fromAccount < 1) throw usageError('--from-account is an account id');
  if (values.table && (!values['token-key-secret'] || !values['webhook-key-secret'])) throw usageError('--table needs --token-key-secret and --webhook-key-secret');
  if (!values.table && (values.region || values['token-key-secret'] || values['webhook-key-secret'])) throw usageError('--region and the key secrets go with --table');
  return { table: values.table, region: values.region, tokenKeySecret: values['token-key-secret'], webhookKeySecret: values['webhook-key-secret'], fromAccount };
}

async function main(): Promise<void> {
  const options = parse();
  const target = chooseTarget(options.table, options.region);
  let report;
  try {
    if (options.tokenKeySecret && options.webhookKeySecret) {
      process.env[tokenSigningKeySecretArnEnvName] = options.tokenKeySecret;
      process.env[webhookSecretKeySecretArnEnvName] = options.webhookKeySecret;
      await loadSecrets();
    }
    report = await resealLegacySecrets(options.fromAccount);
  } catch (error) {
    throw new Error(explain(error as Error, target), { cause: error });
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
  if (report.unreadable.length > 0) process.exitCode = 1;
}

runScript(main);
