// Scenario 1: API latency p50/p99 and requests/s under bounded concurrent load, each list measured
// with the per-account request limit on and off in the same run (alternating, so a neighbour's load
// weighs on both), with the limit's table writes per request.
import { resetConfig } from '../../shared/config';
import { forgetExhaustedWindows } from '../../shared/rate-limits/account-limit';
import { Api, loadInChild, type AutocannonResult } from '../lib/api';
import { details, log, round, row, settings } from '../lib/report';
import { counted, installRoundTripCounter } from './round-trips';

/** Run `load` with the per-account limit at `limit` ('off' or a number far above the load), counting the limit's writes. */
async function withLimit(limit: string, load: () => Promise<AutocannonResult>): Promise<{ result: AutocannonResult; limitWrites: number }> {
  const saved = process.env.ACCOUNT_RATE_LIMIT;
  process.env.ACCOUNT_RATE_LIMIT = limit;
  resetConfig();
  forgetExhaustedWindows();
  installRoundTripCounter();
  try {
    const { result, limitWrites } = await counted(load);
    return { result, limitWrites };
  } finally {
    process.env.ACCOUNT_RATE_LIMIT = saved;
    resetConfig();
  }
}

function report(scenario: string, name: string, result: AutocannonResult): void {
  details[`api_${name.replaceAll(' ', '_')}`] = {
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    avg_ms: result.latency.average,
    max_ms: result.latency.max,
    requests_per_s: result.requests.average,
    total: result.requests.total,
    ok_2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
  row(scenario, `${name} p50`, result.latency.p50, 'ms');
  row(scenario, `${name} p99`, result.latency.p99, 'ms', { op: '<=', limit: 25 });
  row(scenario, `${name} throughput`, round(result.requests.average, 0), 'req/s');
  row(scenario, `${name} non-2xx + errors`, result.non2xx + result.errors + result.timeouts, 'responses', { op: '<=', limit: 0, text: '0' });
}

export async function scenarioApiLatency(api: Api): Promise<void> {
  const scenario = '1 API latency';
  // A handful of types so the list has something to show, and a type of 200 contacts to list.
  for (let i = 0; i < 20; i++) await api.ok('POST', 'contacts-type/add', { form: { name: `Seed type ${i}` } });
  await api.ok('POST', 'contacts-type/add', { form: { name: 'Latency contacts' } });
  const contactTypeId = await api.contactTypeId('Latency contacts');
  for (let i = 0; i < 200; i++) {
    await api.ok('POST', 'contacts/add', { form: { contact_type_id: String(contactTypeId), first_name: 'Load', last_name: `Reader ${i}`, email: `latency-${i}@bench.example`, country: '233' } });
  }
  const common = { connections: settings.apiConnections, duration: settings.apiSeconds, pipelining: 1 };
  // The limit far above the load: it counts and answers with its headers, and never refuses.
  const on = String(1_000_000);

  const lists = [
    ['list GET contacts-type', new URL('contacts-type', api.base)],
    ['list GET contacts/list of 200', new URL('contacts/list?limit=200', api.base)],
  ] as const;
  for (const [name, url] of lists) {
    const load = () => loadInChild({ ...common, url: url.toString(), method: 'GET', headers: api.headers });
    log(`${name}: ${settings.apiConnections} connections, ${settings.apiSeconds} s each, limit off then on (autocannon in a child process)`);
    const off = await withLimit('off', load);
    const limited = await withLimit(on, load);
    report(scenario, `${name}, limit off`, off.result);
    report(scenario, `${name}, limit on`, limited.result);
    row(scenario, `${name}: throughput with the limit on over off`, round(limited.result.requests.average / off.result.requests.average, 3), 'ratio', { op: '>=', limit: 0.9 });
    row(scenario, `${name}: limit's table writes per request`, round(limited.limitWrites / Math.max(1, limited.result.requests.total), 4), 'writes', { op: '<=', limit: 0.1 });
  }

  log(`create: POST /api/contacts-type/add (multipart), ${settings.apiConnections} connections, ${settings.apiSeconds} s`);
  const create = await withLimit(on, () => loadInChild({ ...common, url: new URL('contacts-type/add', api.base).toString(), method: 'POST', headers: api.headers, multipartName: 'Load type' }));
  report(scenario, 'create POST contacts-type/add', create.result);
}
