// Loads `functions/<name>/handler.ts` on first use and keeps it, as a warm Lambda container keeps its
// module; a function that does not exist yet is retried on the next call.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const functionsDir = resolve(__dirname, '../../functions');
const handlers = new Map<string, unknown>();

/** Invocations of one function while metered, and the wall time they took: what Lambda would bill. */
export interface InvocationTally {
  invocations: number;
  milliseconds: number;
}

let tallies: Map<string, InvocationTally> | undefined;

/**
 * Time every invocation of every function from now on (the cost per mail the bench prices): each
 * invocation's own wall time, so invocations that overlap in this one process count as the separate
 * containers they would be deployed. Returns the tallies so far on each call of `read`.
 */
export function meterInvocations(): { read(): ReadonlyMap<string, InvocationTally>; stop(): void } {
  const metered = new Map<string, InvocationTally>();
  tallies = metered;
  return {
    read: () => metered,
    stop: () => {
      if (tallies === metered) tallies = undefined;
    },
  };
}

function timed(name: string, handler: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return async (...args: unknown[]) => {
    const metered = tallies;
    if (!metered) return handler(...args);
    const started = performance.now();
    try {
      return await handler(...args);
    } finally {
      const tally = metered.get(name) ?? { invocations: 0, milliseconds: 0 };
      tally.invocations += 1;
      tally.milliseconds += performance.now() - started;
      metered.set(name, tally);
    }
  };
}

export class FunctionMissingError extends Error {
  override readonly name = 'FunctionMissingError';
}

export function functionHandlerFile(name: string): string {
  return join(functionsDir, name, 'handler.ts');
}

export function functionExists(name: string): boolean {
  return existsSync(functionHandlerFile(name));
}

/** The `handler` export of a function; throws FunctionMissingError when the file does not exist. */
export function loadFunctionHandler(name: string): unknown {
  const cached = handlers.get(name);
  if (cached) return cached;
  const file = functionHandlerFile(name);
  if (!existsSync(file)) throw new FunctionMissingError(`functions/${name}/handler.ts does not exist`);
  // require, not import(): the handler must share this process's module instances (config, clients),
  // and a dynamic path cannot be a static import.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(file) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`functions/${name}/handler.ts does not export a handler function`);
  const handler = timed(name, module.handler as (...args: unknown[]) => unknown);
  handlers.set(name, handler);
  return handler;
}
