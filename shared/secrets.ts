// Secrets read at run time from Secrets Manager, once per container, so no secret is ever in the
// template or the function's environment: the stack passes only the secret's ARN.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClient } from './aws-clients';
import { optionalEnv, provideSecretValues } from './config';

// Used once per container, at the first invocation; built lazily so functions without secrets never construct it.
export const secretsManagerClient = awsClient(({ region }) => new SecretsManagerClient({ region }));

/** The environment variable holding the ARN of the token-signing key's secret. */
export const tokenSigningKeySecretArnEnvName = 'TOKEN_SIGNING_KEY_SECRET_ARN';

let loading: Promise<void> | undefined;

async function readSecret(secretId: string): Promise<string> {
  const { SecretString } = await secretsManagerClient().send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`Secret ${secretId} has no string value`);
  return SecretString;
}

/**
 * Load the secrets this function was given (none without the ARN variables, as locally) before the
 * first use of `config().tokenSigningKey`. Concurrent callers share one request; a failure is not
 * cached, so the next invocation tries again.
 */
export function loadSecrets(): Promise<void> {
  const arn = optionalEnv(tokenSigningKeySecretArnEnvName);
  if (!arn) return Promise.resolve();
  loading ??= readSecret(arn).then(
    (tokenSigningKey) => provideSecretValues({ tokenSigningKey }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
