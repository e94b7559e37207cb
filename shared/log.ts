// Structured JSON log lines through the Powertools logger, one object per line, so CloudWatch Logs
// Insights can query fields; every line of an invocation carries its request id and, once known, the
// API account it works for.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { optionalEnv } from './config';

const logger = new Logger({ serviceName: optionalEnv('POWERTOOLS_SERVICE_NAME') ?? 'email-campaign' });

// Checked per line, not at start-up: tests and the local runtime set LOG_LEVEL after modules load.
const quiet = () => optionalEnv('LOG_LEVEL') === 'silent';

export const log = {
  info: (message: string, fields: Record<string, unknown> = {}) => {
    if (!quiet()) logger.info(message, fields);
  },
  warn: (message: string, fields: Record<string, unknown> = {}) => {
    if (!quiet()) logger.warn(message, fields);
  },
  error: (message: string, fields: Record<string, unknown> = {}) => {
    if (!quiet()) logger.error(message, fields);
  },
};

function isLambdaContext(context: Partial<Context> | undefined): context is Context {
  return typeof context?.awsRequestId === 'string' && typeof context.functionName === 'string' && typeof context.invokedFunctionArn === 'string';
}

/**
 * Start an invocation's log context: the Lambda request id (and cold start, function name), the AWS
 * account from the function's ARN, and no API account until `setLogAccount` names one.
 */
export function startLogInvocation(context: Partial<Context> | undefined): void {
  logger.resetKeys();
  // Tests and the local runtime may pass a partial context or none; only Lambda's own is recorded.
  if (!isLambdaContext(context)) return;
  logger.addContext(context);
  const awsAccountId = context.invokedFunctionArn.split(':')[4];
  if (awsAccountId) logger.appendKeys({ awsAccountId });
}

/** Every further line of this invocation names the API account it serves. */
export function setLogAccount(accountId: number): void {
  logger.appendKeys({ accountId });
}

/** The loggable parts of an unknown thrown value. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.name, detail: error.message, stack: error.stack };
  return { error: String(error) };
}
