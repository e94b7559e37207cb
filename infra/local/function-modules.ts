// Loads `functions/<name>/handler.ts` on first use and keeps it, as a warm Lambda container keeps its
// module; a function that does not exist yet is retried on the next call.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const functionsDir = resolve(__dirname, '../../functions');
const handlers = new Map<string, unknown>();

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
  handlers.set(name, module.handler);
  return module.handler;
}
