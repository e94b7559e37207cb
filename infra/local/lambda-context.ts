// A Lambda Context for functions invoked in process by the local runtime.
import type { Context } from 'aws-lambda';
import { optionalEnv } from '../../shared/config';
import { functionTimeoutSeconds } from '../function-timeouts';

/** The context Lambda would pass to `functionName` for one invocation: its deployed time limit unless `timeoutMs` says otherwise. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs = functionTimeoutSeconds(functionName) * 1000): Context {
  const deadline = Date.now() + timeoutMs;
  const region = optionalEnv('AWS_REGION') ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
