// The environment of a deployed function, for a test of an AWS adapter against a stub endpoint: the
// AWS runtime, a region and fixed credentials (no session token), and the test's own variables (the
// stub's endpoint, the ARNs and URLs the adapter reads).
import { resetConfig } from '../../shared/config';

export function runAsDeployed(variables: Record<string, string>): void {
  Object.assign(process.env, {
    APP_RUNTIME: 'aws',
    TABLE_NAME: 'unused',
    TOKEN_SIGNING_KEY: 'test',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    ...variables,
  });
  delete process.env.AWS_SESSION_TOKEN;
  resetConfig();
}
