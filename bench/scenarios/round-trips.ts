// Scenario 2: DynamoDB round trips per operation, counted by middleware on the document client's
// stack: one count per command (initialize step) and one per HTTP attempt (deserialize step, which
// runs inside the SDK's retry loop).
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { countRequest } from '../../shared/rate-limits/repository';
import { isRequestCounterKey } from '../../shared/rate-limits/keys';
import { db } from '../../shared/table/client';
import { Api } from '../lib/api';
import { details, median, round, row } from '../lib/report';


export interface Counter {
  sends: number;
  attempts: number;
  commands: string[];
  /** Writes to a request counter (the per-account limit's one UpdateItem per authenticated request), apart from the operation's own. */
  limitWrites: number;
}
export const counter: Counter = { sends: 0, attempts: 0, commands: [], limitWrites: 0 };
const countedClients = new WeakSet<object>();

/** Count on the current client (a new configuration builds a new one: call again after a restart). */
export function installRoundTripCounter(): void {
  const client = db();
  if (countedClients.has(client)) return;
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (isRequestCounterKey((args.input as { Key?: Record<string, unknown> }).Key)) {
        counter.limitWrites++;
        return next(args);
      }
      counter.sends++;
      counter.commands.push(String(context.commandName ?? 'unknown').replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'benchCountCommands' },
  );
  client.middlewareStack.add(
    (next) => (args) => {
      if (isRequestCounterKey((args.input as { Key?: Record<string, unknown> }).Key)) return next(args);
      counter.attempts++;
      return next(args);
    },
    { step: 'deserialize', name: 'benchCountAttempts' },
  );
  countedClients.add(client);
}

export async function counted<T>(run: () => Promise<T>): Promise<{ sends: number; attempts: number; commands: string[]; limitWrites: number; result: T }> {
  counter.sends = 0;
  counter.attempts = 0;
  counter.commands = [];
  counter.limitWrites = 0;
  const result = await run();
  return { sends: counter.sends, attempts: counter.attempts, commands: [...counter.commands], limitWrites: counter.limitWrites, result };
}

/**
 * What the per-account request limit costs a request: the median time of its counter write alone
 * beside the median of a whole `GET contacts-type` (which includes it), in the same run.
 */
async function requestLimitCost(api: Api, scenario: string): Promise<void> {
  const samples = 200;
  const whole: number[] = [];
  const counterOnly: number[] = [];
  for (let i = 0; i < samples; i++) {
    let started = performance.now();
    await api.ok('GET', 'contacts-type');
    whole.push(performance.now() - started);
    started = performance.now();
    await countRequest({ pk: 'A#0#rate#bench', sk: 'RATE' }, Math.floor(Date.now() / 1000) + 60);
    counterOnly.push(performance.now() - started);
  }
  details.request_limit_cost = { samples, request_p50_ms: round(median(whole), 2), counter_write_p50_ms: round(median(counterOnly), 2) };
  row(scenario, 'request counter write, share of a list request (p50 ratio)', round(median(counterOnly) / median(whole), 2), 'ratio');
}

export async function scenarioRoundTrips(api: Api): Promise<void> {
  const scenario = '2 DynamoDB round trips';
  installRoundTripCounter();
  // Self-check: one GetItem through the document client is exactly one counted send.
  const check = await counted(() => db().send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'bench#none', sk: 'bench#none' } })));
  if (check.sends !== 1 || check.attempts !== 1) throw new Error(`round-trip counter self-check counted ${check.sends} sends / ${check.attempts} attempts for one GetItem`);

  // Warm: the credential cache and each function's module, then every op once more, counted.
  await api.ok('GET', 'contacts-type');
  await api.ok('GET', 'contacts/list');

  const tag = randomUUID().slice(0, 8);
  const ops: { name: string; warm: () => Promise<unknown>; measure: () => Promise<unknown> }[] = [];
  let typeA = 0;
  let typeB = 0;
  ops.push({
    name: 'contacts-type add',
    warm: async () => api.ok('POST', 'contacts-type/add', { form: { name: `RT warm ${tag}` } }),
    measure: async () => api.ok('POST', 'contacts-type/add', { form: { name: `RT ${tag}` } }),
  });
  ops.push({ name: 'contacts-type list', warm: () => api.ok('GET', 'contacts-type'), measure: () => api.ok('GET', 'contacts-type') });
  const lookUpTypes = async () => {
    typeA = await api.contactTypeId(`RT ${tag}`);
    typeB = await api.contactTypeId(`RT warm ${tag}`);
  };
  ops.push({
    name: 'contacts-type view',
    warm: async () => {
      await lookUpTypes();
      return api.ok('GET', 'contacts-type/view', { query: { contact_type_id: typeB } });
    },
    measure: () => api.ok('GET', 'contacts-type/view', { query: { contact_type_id: typeA } }),
  });
  ops.push({
    name: 'contacts-type update',
    warm: () => api.ok('POST', 'contacts-type/update', { form: { id: String(typeB), name: `RT warm2 ${tag}` } }),
    measure: () => api.ok('POST', 'contacts-type/update', { form: { id: String(typeA), name: `RT renamed ${tag}` } }),
  });
  const contact = (email: string) => ({ contact_type_id: String(typeA), first_name: 'Round', last_name: 'Trip', email, country: '233', city: 'Springfield' });
  let contactId = 0;
  let warmContactId = 0;
  ops.push({
    name: 'contacts add',
    warm: () => api.ok('POST', 'contacts/add', { form: contact(`rt-warm-${tag}@example.com`) }),
    measure: () => api.ok('POST', 'contacts/add', { form: contact(`rt-${tag}@example.com`) }),
  });
  ops.push({
    name: 'contacts details',
    warm: async () => {
      contactId = await api.contactId(`rt-${tag}@example.com`);
      warmContactId = await api.contactId(`rt-warm-${tag}@example.com`);
      return api.ok('GET', 'contacts/details', { query: { contact_id: warmContactId } });
    },
    measure: () => api.ok('GET', 'contacts/details', { query: { contact_id: contactId } }),
  });
  // Deleting a type with contacts may be refused; delete a fresh, empty pair.
  let emptyA = 0;
  let emptyB = 0;
  ops.push({
    name: 'contacts-type delete',
    warm: async () => {
      await api.ok('POST', 'contacts-type/add', { form: { name: `RT del ${tag}` } });
      await api.ok('POST', 'contacts-type/add', { form: { name: `RT del warm ${tag}` } });
      emptyA = await api.contactTypeId(`RT del ${tag}`);
      emptyB = await api.contactTypeId(`RT del warm ${tag}`);
      return api.ok('DELETE', 'contacts-type/delete', { query: { contact_type_id: emptyB } });
    },
    measure: () => api.ok('DELETE', 'contacts-type/delete', { query: { contact_type_id: emptyA } }),
  });

  const perOp: Record<string, unknown> = {};
  for (const op of ops) {
    await op.warm();
    const result = await counted(op.measure);
    perOp[op.name] = { sends: result.sends, http_attempts: result.attempts, commands: result.commands, request_limit_writes: result.limitWrites };
    row(scenario, `${op.name}`, result.sends, 'round trips', { op: '<=', limit: 2 });
    row(scenario, `${op.name}: request limit counter`, result.limitWrites, 'writes', { op: '<=', limit: 1 });
  }
  details.round_trips = perOp;
  await requestLimitCost(api, scenario);
}
