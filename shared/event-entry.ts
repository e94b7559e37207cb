// The entry of every event function (scheduler targets, queue consumers, SES feedback): the
// invocation's trace subsegment and log context, the secrets loaded before any work, and the
// invocation's metrics written at the end, whether the work succeeded or not.
import type { Context } from 'aws-lambda';
import { startLogInvocation } from './log';
import { flushMetrics } from './metrics';
import { loadSecrets } from './secrets';
import { traceInvocation } from './tracing';

/** Wrap an event function's handler; a test may call it with a partial context or none. */
export function eventHandler<E, R, C extends Partial<Context> = Context>(
  handler: (event: E, context?: C) => Promise<R>,
): (event: E, context?: C) => Promise<R> {
  return (event, context) =>
    traceInvocation(context?.functionName ?? 'handler', async () => {
      startLogInvocation(context);
      try {
        await loadSecrets();
        return await handler(event, context);
      } finally {
        flushMetrics();
      }
    });
}
