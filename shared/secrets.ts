// Secrets read at run time from Secrets Manager, once per container, so no secret is ever in the
// template or the function's environment: the stack passes only the secret's ARN.
import { awsCall } from './aws/call';
import { config, provideSecretValues } from './config';

/** The environment variable holding the ARN of the token-signing key's secret. */
export const tokenSigningKeySecretArnEnvName = 'TOKEN_SIGNING_KEY_SECRET_ARN';

let loading: Promise<void> | undefined;

async function readSecret(secretId: string): Promise<string> {
  const { SecretString } = await awsCall<{ SecretString?: string }>({
    service: 'secretsmanager',
    region: config().region,
    operation: 'GetSecretValue',
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
    body: { SecretId: secretId },
    maxAttempts: 3,
  });
  if (!SecretString) throw new Error(`Secret ${secretId} has no string value`);
  return SecretString;
}

/**
 * Load the secrets this function was given (none without the ARN variables, as locally) before the
 * first use of `config().tokenSigningKey`. Concurrent callers share one request; a failure is not
 * cached, so the next invocation tries again.
 */
export function loadSecrets(): Promise<void> {
  const arn = process.env[tokenSigningKeySecretArnEnvName];
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
