// The one table from error class to answer (status, `errors` member, headers), consulted once, when
// the pipeline maps what an operation threw. The vocabulary and the pipeline's own refusals are
// registered here; an operation adds the named errors of the modules it calls, in its own terms.
import type { Route } from '../routes';
import { Conflict, RateLimited, Unavailable, ValidationError, type FieldErrors } from '../errors';
import { RecordNotFound } from '../table/errors';
import { InvalidCursor } from '../table/pages';
import { HttpError } from './errors';
import { invalidCursorMessage } from './pages';

/** An error's answer, sent in the envelope `{status: 'failed', errors}`. */
export interface ErrorAnswer {
  statusCode: number;
  errors: string | FieldErrors;
  headers?: Record<string, string>;
}

/** What a handler may know of the request besides the error. */
export interface ErrorContext {
  route?: Route;
}

/** An answer, or an error of the vocabulary to answer in its place. */
export type ErrorHandler<E extends Error = Error> = (error: E, context: ErrorContext) => ErrorAnswer | Error;

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

export interface ErrorRegistration {
  type: ErrorClass<Error>;
  handle: ErrorHandler;
}

/** Answer errors of `type` (and of its subclasses) with `handle`. */
export function on<E extends Error>(type: ErrorClass<E>, handle: ErrorHandler<E>): ErrorRegistration {
  // Sound: the registry calls a handler only with an instance of the class it was registered for.
  return { type, handle: handle as ErrorHandler };
}

/** A translation can name another error; more hops than this is a loop in the registrations. */
const maxHops = 4;

export class ErrorRegistry {
  readonly #handlers = new Map<ErrorClass<Error>, ErrorHandler>();

  /** `fallback` answers what these registrations do not. */
  constructor(registrations: readonly ErrorRegistration[], private readonly fallback?: ErrorRegistry) {
    for (const { type, handle } of registrations) {
      if (this.#handlers.has(type)) throw new Error(`${type.name} is registered twice`);
      this.#handlers.set(type, handle);
    }
  }

  /** The handler of the error's own class or its nearest registered ancestor; then the fallback's. */
  resolve(error: Error): ErrorHandler | undefined {
    for (let prototype: object | null = Object.getPrototypeOf(error); prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
      const handler = this.#handlers.get((prototype as { constructor: ErrorClass<Error> }).constructor);
      if (handler) return handler;
    }
    return this.fallback?.resolve(error);
  }

  /** The answer to `error`, or undefined when nothing here knows it (the pipeline answers a generic 500). */
  answer(error: unknown, context: ErrorContext): ErrorAnswer | undefined {
    let current = error;
    for (let hop = 0; hop < maxHops && current instanceof Error; hop++) {
      const handler = this.resolve(current);
      if (!handler) return undefined;
      const answer = handler(current, context);
      if (!(answer instanceof Error)) return answer;
      current = answer;
    }
    return undefined;
  }
}

/** How the pipeline answers the vocabulary and its own refusals, for every operation. */
export const defaultErrors = new ErrorRegistry([
  on(ValidationError, (error) => ({ statusCode: 422, errors: error.errors })),
  on(RecordNotFound, (_error, { route }) => ({ statusCode: 404, errors: route?.notFound ?? 'Record Not Found' })),
  on(InvalidCursor, () => ValidationError.of('cursor', invalidCursorMessage)),
  on(Conflict, (error) => ({ statusCode: 409, errors: error.message })),
  on(RateLimited, (error) => ({ statusCode: 429, errors: error.message, headers: { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) } })),
  on(Unavailable, (error) => ({ statusCode: 503, errors: error.message, headers: { 'Retry-After': String(error.retryAfterSeconds) } })),
  on(HttpError, (error) => ({ statusCode: error.statusCode, errors: error.errors, headers: error.headers })),
]);
