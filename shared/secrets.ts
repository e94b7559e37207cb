// Secrets read at run time from Secrets Manager, once per container and again every few minutes, so
// no secret is ever in the template or the function's environment (the stack passes only the
// secret's ARN) and a rotated key reaches warm containers.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClient } from './aws-clients';
import { optionalEnv, provideSecretValues, type SecretValues } from './config';
import { describeError, log } from './log';
import { currentTime } from './time';

// Used at the first invocation and every few minutes after; built lazily so functions without secrets never construct it.
export const secretsManagerClient = awsClient(({ region }) => new SecretsManagerClient({ region }));

/** The environment variable holding the ARN of the token-signing key's secret. */
export const tokenSigningKeySecretArnEnvName = 'TOKEN_SIGNING_KEY_SECRET_ARN';

/** The environment variable holding the ARN of the secret of the key webhook secrets are sealed with. */
export const webhookSecretKeySecretArnEnvName = 'WEBHOOK_SECRET_KEY_SECRET_ARN';

/** Each secret a function may be given (by its ARN variable) and the setting it provides. */
const secretSettings: readonly [envName: string, setting: keyof SecretValues][] = [
  [tokenSigningKeySecretArnEnvName, 'tokenSigningKey'],
  [webhookSecretKeySecretArnEnvName, 'webhookSecretKey'],
];

/**
 * How long a container uses the secret it read before reading it again: a key set stored during a
 * rotation reaches every warm container within this time, without a redeploy (docs/operations.md).
 */
export const secretRefreshMs = 5 * 60_000;

let loading: Promise<void> | undefined;
let loadedAt: number | undefined;

async function readSecret(secretId: string): Promise<string> {
  const { SecretString } = await secretsManagerClient().send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`Secret ${secretId} has no string value`);
  return SecretString;
}

/** The secrets this function was given: (ARN, setting) for each ARN variable set. */
function givenSecrets(): [arn: string, setting: keyof SecretValues][] {
  return secretSettings.flatMap(([envName, setting]) => {
    const arn = optionalEnv(envName);
    return arn ? [[arn, setting] as [string, keyof SecretValues]] : [];
  });
}

async function load(secrets: [arn: string, setting: keyof SecretValues][]): Promise<void> {
  const values = await Promise.all(secrets.map(async ([arn, setting]) => [setting, await readSecret(arn)] as const));
  provideSecretValues(Object.fromEntries(values));
  loadedAt = currentTime().getTime();
}

/**
 * Load the secrets this function was given (none without the ARN variables, as locally) before the
 * first use of `config().tokenSigningKey` or `config().webhookSecretKey`, and again once they are
 * `secretRefreshMs` old. Concurrent callers share one request. A first read that fails fails the
 * invocation and is not cached, so the next one tries again; a refresh that fails keeps the values
 * already read (a Secrets Manager hiccup must not stop links from working) and is tried again by the
 * next invocation. (A key set with a mistake in it is refused where it is read, shared/key-set.ts,
 * which keeps the last good one.)
 */
export function loadSecrets(): Promise<void> {
  const secrets = givenSecrets();
  if (secrets.length === 0) return Promise.resolve();
  if (loadedAt === undefined) {
    loading ??= load(secrets).finally(() => {
      loading = undefined;
    });
    return loading;
  }
  if (currentTime().getTime() - loadedAt < secretRefreshMs) return Promise.resolve();
  loading ??= load(secrets)
    .catch((error: unknown) => log.warn('secret refresh failed; the values already read stay in use', describeError(error)))
    .finally(() => {
      loading = undefined;
    });
  return loading;
}
