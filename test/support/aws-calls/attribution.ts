// Which function's handler is running: each handler invocation runs in its own async context, named
// after its function, so every AWS call made inside it (whatever the test or local runtime entry that
// invoked it) is the function's. Handlers are wrapped by handler-transform.js while calls are recorded.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Invocation {
  /** The function whose handler runs, e.g. `send-deliver`. */
  functionName: string;
  /** Inside a local stand-in of an AWS service: its own table calls are not the function's. */
  standIn: boolean;
}

const invocations = new AsyncLocalStorage<Invocation>();

export function currentInvocation(): Invocation | undefined {
  return invocations.getStore();
}

/** Run `work` in `invocation`'s context. */
export function runAs<Result>(invocation: Invocation, work: () => Result): Result {
  return invocations.run(invocation, work);
}

/** The handler, each of its invocations attributed to `functionName`. */
export function attributedHandler<Args extends unknown[], Result>(functionName: string, handler: (...args: Args) => Result): (...args: Args) => Result {
  return (...args) => invocations.run({ functionName, standIn: false }, () => handler(...args));
}
