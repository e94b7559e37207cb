// The one request pipeline every HTTP family goes through, in this order:
// match route -> authenticate -> request limit -> parse body -> idempotency key (POST) -> operation
// -> envelope; errors are mapped last, and a request still running near the function's time limit is
// answered with a 503. Every answer to an authenticated request carries the account's X-RateLimit-*
// headers. A REST API's payload 1.0 event enters the same pipeline as the 2.0 event it stands for.
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { authenticate, type AuthenticatedAccount } from '../auth/authenticate';
import { describeError, log, setLogAccount, startLogInvocation } from '../log';
import { routesOf, type HttpFamily, type Route } from '../routes';
import { loadSecrets } from '../secrets';
import { traceInvocation } from '../tracing';
import { rateLimitHeaders, takeAccountRequest, type RateLimitState } from '../rate-limits/account-limit';
import { RateLimited, Unavailable } from '../errors';
import { defaultErrors, ErrorRegistry, type ErrorRegistration } from './error-registry';
import { UnauthorizedError } from './errors';
import { runIdempotently } from './idempotency';
import { jsonResult, toResult, type Reply } from './reply';
import { matchRoute, readRequest, refuseOverlongCredentials, type ApiRequest } from './request';
import { fromRestEvent, isRestEvent, toRestResult, type HttpEvent } from './rest-event';

export interface AccountContext {
  account: AuthenticatedAccount;
  request: ApiRequest;
  route: Route;
}

export interface PublicContext {
  request: ApiRequest;
  route: Route;
}

export type Operation =
  | { auth: 'account'; run: (context: AccountContext) => Promise<Reply>; errors: ErrorRegistry }
  | { auth: 'public'; run: (context: PublicContext) => Promise<Reply>; readBody: boolean };

/**
 * An operation that needs the account's credentials. `errors` registers how it answers the named
 * errors of what it calls (a contact's email taken, a record gone between a check and the write);
 * the vocabulary's answers apply to every operation.
 */
export function accountOperation(run: (context: AccountContext) => Promise<Reply>, options: { errors?: readonly ErrorRegistration[] } = {}): Operation {
  return { auth: 'account', run, errors: options.errors ? new ErrorRegistry(options.errors, defaultErrors) : defaultErrors };
}

/**
 * An operation reached without credentials (pages and links in mail, guarded by signed tokens).
 * `readBody: false` for one that reads only its query: its body, in whatever encoding, is never parsed.
 */
export function publicOperation(run: (context: PublicContext) => Promise<Reply>, options: { readBody?: boolean } = {}): Operation {
  return { auth: 'public', run, readBody: options.readBody ?? true };
}

/** A family's handler: the HTTP API's payload 2.0, or the public links' REST API's 1.0, each answered in its own format. */
export interface HttpHandler {
  (event: APIGatewayProxyEventV2, context?: Context): Promise<APIGatewayProxyStructuredResultV2>;
  (event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult>;
}

/** Refuse at cold start a family whose operations and routes disagree, so a typo never ships. */
function checkWiring(family: HttpFamily, operations: Record<string, Operation>): void {
  const familyRoutes = routesOf(family);
  for (const route of familyRoutes) {
    const operation = operations[route.operation];
    if (!operation) throw new Error(`Route ${route.method} ${route.path} names missing operation ${family}.${route.operation}`);
    if (operation.auth !== (route.auth ?? 'account')) {
      throw new Error(`Operation ${family}.${route.operation} is ${operation.auth} but its route is ${route.auth ?? 'account'}`);
    }
  }
  for (const name of Object.keys(operations)) {
    if (!familyRoutes.some((route) => route.operation === name)) throw new Error(`Operation ${family}.${name} has no route`);
  }
}

/** Map anything thrown to a response: registered errors get their answer, the rest is a logged generic 500. */
export function errorResult(error: unknown, route: Route | undefined, requestId: string, errors: ErrorRegistry = defaultErrors): APIGatewayProxyStructuredResultV2 {
  const answer = errors.answer(error, { route });
  if (answer) return jsonResult(answer.statusCode, { status: 'failed', errors: answer.errors }, answer.headers);
  log.error('request failed', { requestId, route: route ? `${route.method} ${route.path}` : undefined, ...describeError(error) });
  return jsonResult(500, { status: 'failed', errors: 'Internal server error.' });
}

/**
 * Time kept back from the function's limit (29 s, infra/function-timeouts.ts): API Gateway waits 30 s
 * for an answer, counting a cold start and the network, and answers a late one with its own error.
 */
export const deadlineReserveMs = 3_000;

export const deadlineMessage = 'The request did not finish in time. Try again later.';
/** A slow request is slow for a reason (a throttled table, a large body): a few seconds before the next try. */
const deadlineRetryAfterSeconds = 5;

/**
 * `work`'s answer, or `late()`'s when `remainingMs` (the Lambda context's) says the function's time is
 * nearly up first. With no time left, `work` is not started. A request past the deadline is not undone:
 * what it had written stays, and Lambda resumes what was in flight with the container's next request.
 */
export function beforeDeadline<Result>(work: () => Promise<Result>, remainingMs: (() => number) | undefined, late: () => Result): Promise<Result> {
  if (!remainingMs) return work();
  const budgetMs = remainingMs() - deadlineReserveMs;
  if (budgetMs <= 0) return Promise.resolve(late());
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Result>((resolve) => {
    timer = setTimeout(() => resolve(late()), budgetMs);
  });
  return Promise.race([work(), deadline]).finally(() => clearTimeout(timer));
}

/** The answer with the account's request-limit headers added (a raw reply, a CSV or a page, gets them too). */
function withRateLimitHeaders(result: APIGatewayProxyStructuredResultV2, state: RateLimitState | undefined): APIGatewayProxyStructuredResultV2 {
  if (!state) return result;
  return { ...result, headers: { ...result.headers, ...rateLimitHeaders(state) } };
}

/** What the pipeline knows of a request so far: an answer at the deadline carries it too. */
interface RequestState {
  route?: Route;
  limitState?: RateLimitState;
}

async function answer(
  family: HttpFamily,
  operations: Record<string, Operation>,
  event: APIGatewayProxyEventV2,
  requestId: string,
  state: RequestState,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    // Before any operation: signing and verifying links read the key loaded here.
    await loadSecrets();
    const match = matchRoute(event, family);
    const route = match.route;
    state.route = route;
    const operation = operations[route.operation] as Operation;
    if (operation.auth === 'account') {
      refuseOverlongCredentials(event.headers);
      const authentication = await authenticate(event.headers ?? {});
      if ('refused' in authentication) throw new UnauthorizedError(authentication.refused);
      const { account } = authentication;
      setLogAccount(account.id);
      // Before the body is read: a refused request costs at most one counter write and nothing else.
      const limitState = await takeAccountRequest(account.id);
      state.limitState = limitState;
      if (limitState?.retryAfterSeconds !== undefined) {
        throw new RateLimited(`Too many requests: at most ${limitState.limit} per second per account. Try again in 1 second.`, limitState.retryAfterSeconds);
      }
      const request = await readRequest(event, match);
      const answered = await runIdempotently(account.id, request, async () => {
        try {
          return toResult(await operation.run({ account, request, route }));
        } catch (error) {
          return errorResult(error, route, requestId, operation.errors);
        }
      });
      return withRateLimitHeaders(answered, limitState);
    }
    const request = await readRequest(event, match, { readBody: operation.readBody });
    return toResult(await operation.run({ request, route }));
  } catch (error) {
    return withRateLimitHeaders(errorResult(error, state.route, requestId), state.limitState);
  }
}

/** The Lambda handler of one HTTP family. */
export function httpHandler(family: HttpFamily, operations: Record<string, Operation>): HttpHandler {
  checkWiring(family, operations);
  const handle = (event: APIGatewayProxyEventV2, context?: Context) => traceInvocation(family, async (): Promise<APIGatewayProxyStructuredResultV2> => {
    const requestId = context?.awsRequestId ?? event.requestContext.requestId;
    const state: RequestState = {};
    startLogInvocation(context);
    const late = () => {
      const { route, limitState } = state;
      log.warn('request out of time: answered 503, its work goes on', { requestId, route: route ? `${route.method} ${route.path}` : undefined });
      return withRateLimitHeaders(errorResult(new Unavailable(deadlineMessage, deadlineRetryAfterSeconds), route, requestId), limitState);
    };
    const remainingMs = context?.getRemainingTimeInMillis ? () => context.getRemainingTimeInMillis() : undefined;
    return beforeDeadline(() => answer(family, operations, event, requestId, state), remainingMs, late);
  });
  const entry = async (event: HttpEvent, context?: Context) => (isRestEvent(event) ? toRestResult(await handle(fromRestEvent(event), context)) : handle(event, context));
  return entry as HttpHandler;
}
