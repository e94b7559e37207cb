// Property-based fuzzing of every route through the local gateway and the real handlers on DynamoDB
// Local: random paths, queries, headers, credentials and bodies (multipart, urlencoded, JSON,
// garbage). Every answer is below 500 and in the envelope (or one of the few pages and files the
// API serves), and a refused request (4xx) writes nothing: no table write (but the request counter of
// the account's rate limit, which every authenticated request adds to), no mail, no queue message.
// Deterministic: a fixed seed per route. FUZZ_SEED and FUZZ_RUNS explore further; a failure prints
// the seed and the shrunk request that fails.
import fc from 'fast-check';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { startGateway, type Gateway } from '../../infra/local/gateway';
import type { SesSink } from '../../infra/local/ses-sink';
import { sesClient } from '../../shared/mail/mailer';
import { localQueueIdle, registerLocalConsumer, stopLocalQueues } from '../../shared/queue/local-queue';
import { queueNames } from '../../shared/queue/queues';
import { findRoute, pathBelowApi, routeKey, routes, type Route } from '../../shared/routes';
import { isRequestCounterKey } from '../../shared/rate-limits/keys';
import { db } from '../../shared/table/client';
import { newAccount } from '../support/accounts';
import { requestsFor, sendRaw, strayRequests, withDescription, type FuzzAnswer, type FuzzKeys, type FuzzRequest } from '../support/fuzz-requests';
import { senderInput, startMailSink, stopMailSink } from '../support/senders';

const seed = Number(process.env.FUZZ_SEED ?? 20_240_611);
const runsPerRoute = Number(process.env.FUZZ_RUNS ?? 20);

/** Side effects seen since the last reset: successful table writes, mail sent, queue messages. */
const sideEffects: string[] = [];

const tableWrites = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)Command$/;
const observed = new WeakSet<object>();

/** Record each successful call the predicate names on the real client (the call itself is not changed). */
function observe(client: DynamoDBClient | SESv2Client, isSideEffect: (command: string, input: { Key?: Record<string, unknown> }) => boolean): void {
  if (observed.has(client)) return;
  observed.add(client);
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (isSideEffect(context.commandName ?? '', args.input as { Key?: Record<string, unknown> })) sideEffects.push(context.commandName as string);
      return result;
    },
    { step: 'initialize', name: 'fuzzSideEffects' },
  );
}

/** Clients are rebuilt when the configuration is re-read; observe whichever is current. */
function observeClients(): void {
  observe(db() as unknown as DynamoDBClient, (command, input) => tableWrites.test(command) && !isRequestCounterKey(input.Key));
  observe(sesClient(), (command) => command === 'SendEmailCommand');
}

/** Pages and files some routes serve outside the JSON envelope, by route. */
const rawAnswers: Record<string, RegExp> = {
  'GET /api/contacts/csv-sample/download': /^text\/csv/,
  'GET /api/assets/previews/{file}': /^image\/svg\+xml/,
  'GET /api/automations/schedule/design/{token}': /^text\/html/,
  'GET /api/automations/schedule/image/{token}': /^image\//,
  'GET /api/public/open': /^image\/gif$/,
  'GET /api/public/click': /^text\/html/,
  'GET /api/docs': /^text\/html/,
  'GET /api/docs/{file}': /^(text\/(css|javascript|html)|application\/javascript)/,
  'GET /api/public/preferences': /^text\/html/,
  'POST /api/public/preferences': /^text\/html/,
  'GET /api/public/unsubscribe': /^text\/html/,
  'POST /api/public/unsubscribe': /^text\/plain/,
  'GET /api/public/senders/confirm': /^text\/html/,
  'POST /api/public/senders/confirm': /^text\/html/,
  'GET /api/public/senders/verified': /^text\/html/,
  'GET /api/public/senders/verification-failed': /^text\/html/,
  'GET /api/public/opt-in/confirm': /^text\/html/,
  'POST /api/public/opt-in/confirm': /^text\/html/,
};

function routeOf(request: FuzzRequest): Route | undefined {
  const path = pathBelowApi(request.target.split('?')[0] as string);
  return path === undefined ? undefined : findRoute(request.method, path).match?.route;
}

function isEnvelope(value: unknown, status: number): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const envelope = value as { status?: unknown; errors?: unknown; message?: unknown };
  if (envelope.status === 'success') return status < 400 && ('message' in envelope || typeof envelope.errors === 'string');
  if (envelope.status !== 'failed' || status < 400) return false;
  const { errors } = envelope;
  if (typeof errors === 'string') return errors.length > 0;
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return false;
  return Object.values(errors).every((messages) => Array.isArray(messages) && messages.length > 0 && messages.every((text) => typeof text === 'string'));
}

/** What is wrong with an answer, or undefined when nothing is. */
function problemWith(request: FuzzRequest, answer: FuzzAnswer, effects: string[]): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  if (answer.status >= 400 && effects.length > 0) return `refused with ${answer.status} but wrote: ${effects.join(', ')}`;
  const contentType = String(answer.headers['content-type'] ?? '');
  if (request.method === 'HEAD') return undefined;
  // The OpenAPI document is JSON, but it is the API's description, not an answer in the envelope.
  const described = routeOf(request);
  if (described !== undefined && routeKey(described) === 'GET /api/openapi.json' && answer.status === 200) return undefined;
  if (/^application\/json/.test(contentType)) {
    let value: unknown;
    try {
      value = JSON.parse(answer.body.toString('utf8'));
    } catch {
      return `answered ${answer.status} with a body that is not JSON`;
    }
    return isEnvelope(value, answer.status) ? undefined : `answered ${answer.status} outside the envelope: ${answer.body.toString('utf8').slice(0, 300)}`;
  }
  const route = routeOf(request);
  const expected = route ? rawAnswers[routeKey(route)] : undefined;
  if (answer.status >= 300 && answer.status < 400 && route?.path === 'automations/schedule/image/{token}' && answer.headers.location) return undefined;
  if (expected?.test(contentType)) return undefined;
  return `answered ${answer.status} with ${contentType || 'no content type'} outside the envelope`;
}

/** Every queue drained, and the SES events of every mail so far (held in the delivery stream's buffer first) applied. */
async function settled(sink: SesSink): Promise<void> {
  await sink.eventsIdle();
  await localQueueIdle();
}

async function exchange(port: number, sink: SesSink, request: FuzzRequest): Promise<{ answer: FuzzAnswer; effects: string[] }> {
  observeClients();
  // Whatever an earlier request left behind (a queue message, a mail's SES events still in the
  // delivery stream's buffer) arrives before this one is sent, so it is never taken for this one's.
  await settled(sink);
  sideEffects.length = 0;
  const answer = await sendRaw(port, request);
  await settled(sink);
  return { answer, effects: [...sideEffects] };
}

describe('any request to any route (property-based)', () => {
  let gateway: Gateway;
  let sink: SesSink;
  let keys: FuzzKeys;
  const unregister: (() => void)[] = [];

  /** A well-formed request as the account, to give the fuzzing records to find. */
  async function setUp(method: string, path: string, fields: Record<string, string | number>): Promise<void> {
    const body = Buffer.from(new URLSearchParams(Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)])).toString());
    const { answer, effects } = await exchange(gateway.port, sink, withDescription({
      method,
      target: `/api/${path}`,
      headers: { PublicKey: keys.account.public_key, SecretKey: keys.account.secret_key, 'content-type': 'application/x-www-form-urlencoded' },
      body,
      credentials: 'valid',
    }));
    if (answer.status !== 200) throw new Error(`set-up ${method} ${path} answered ${answer.status}: ${answer.body.toString('utf8')}`);
    // The observers must see an accepted request's writes, or "wrote nothing" would prove nothing.
    if (!effects.some((effect) => tableWrites.test(effect))) throw new Error(`set-up ${method} ${path} wrote nothing the observer saw`);
    if (path === 'sender/save' && !effects.includes('SendEmailCommand')) throw new Error('the verification mail of sender/save was not seen');
  }

  beforeAll(async () => {
    sink = await startMailSink();
    gateway = await startGateway({ port: 0, quiet: true });
    // Messages a request puts on a queue arrive here and count as its side effects.
    for (const queue of queueNames) {
      unregister.push(
        registerLocalConsumer(queue, async (event) => {
          sideEffects.push(...event.Records.map(() => `message on ${queue}`));
        }),
      );
    }
    keys = { account: await newAccount('Fuzz'), otherAccount: await newAccount('Fuzz other') };
    await setUp('POST', 'contacts-type/add', { name: 'Customers' });
    await setUp('POST', 'unsubscribes-groups/save', { group_name: 'News', description: 'News', is_display: 1 });
    await setUp('POST', 'custom-fields/save', { field_name: 'age', field_type: 'number' });
    await setUp('POST', 'contacts/add', { contact_type_id: 1, first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com', country: 233 });
    await setUp('POST', 'sender/save', senderInput());
  }, 120_000);

  afterAll(async () => {
    for (const remove of unregister) remove();
    await stopLocalQueues();
    await gateway?.close();
    if (sink) await stopMailSink(sink);
  });

  it('never answers 5xx, always answers in the envelope, and writes nothing when it refuses', async () => {
    const arbitraries = [...routes.map((route) => requestsFor(route, keys)), strayRequests(keys)];
    for (const [index, requests] of arbitraries.entries()) {
      await fc.assert(
        fc.asyncProperty(requests, async (request) => {
          const { answer, effects } = await exchange(gateway.port, sink, request);
          const problem = problemWith(request, answer, effects);
          if (problem) throw new Error(`${request.method} ${request.target.slice(0, 200)} (${request.credentials} credentials) ${problem}`);
        }),
        { seed: seed + index, numRuns: runsPerRoute },
      );
    }
  }, 180_000);
});
