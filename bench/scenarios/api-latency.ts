// Scenario 1: API latency p50/p99 and requests/s under bounded concurrent load.
import { Api, loadInChild } from '../lib/api';
import { details, log, round, row, settings } from '../lib/report';


export async function scenarioApiLatency(api: Api): Promise<void> {
  const scenario = '1 API latency';
  // A handful of types so the list has something to show; the list runs before the create load.
  for (let i = 0; i < 20; i++) await api.ok('POST', 'contacts-type/add', { form: { name: `Seed type ${i}` } });
  const common = { connections: settings.apiConnections, duration: settings.apiSeconds, pipelining: 1 };

  log(`list: GET /api/contacts-type, ${settings.apiConnections} connections, ${settings.apiSeconds} s (autocannon in a child process)`);
  const list = await loadInChild({ ...common, url: new URL('contacts-type', api.base).toString(), method: 'GET', headers: api.headers });

  log(`create: POST /api/contacts-type/add (multipart), ${settings.apiConnections} connections, ${settings.apiSeconds} s`);
  const create = await loadInChild({ ...common, url: new URL('contacts-type/add', api.base).toString(), method: 'POST', headers: api.headers, multipartName: 'Load type' });

  for (const [name, result] of [
    ['list GET contacts-type', list],
    ['create POST contacts-type/add', create],
  ] as const) {
    details[`api_${name.split(' ')[0]}`] = {
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
}
