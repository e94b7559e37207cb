// The in-process queue, for local runs only. Lambda bundles are built with `process.env.LAMBDA_BUNDLE`
// defined as "true" (infra/stack/lambda-bundling.ts), so esbuild drops the branch below and the local
// queue with it: every function that sends a message carries about 3 KB less.
import type * as LocalQueue from './local-queue';

/** The local queue module; a Lambda bundle has none (its runtime is never local). */
export function localQueue(): typeof LocalQueue {
  if (process.env.LAMBDA_BUNDLE !== 'true') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a require esbuild can drop, unlike an import
    return require('./local-queue') as typeof LocalQueue;
  }
  throw new Error('The in-process queue is not part of a Lambda bundle');
}
