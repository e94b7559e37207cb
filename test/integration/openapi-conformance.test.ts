// The OpenAPI document against the real handlers on DynamoDB Local: a tour of every JSON operation
// (test/support/openapi-tour.ts) validates each real success answer against the schema documented for
// that operation, one success and one failure of every family validate against the responses it
// documents (and the requests sent against the fields it documents), and every account route's real
// 422 on an empty request names exactly the required fields the document lists, so the document and
// the code cannot drift apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiDocsDirEnvName } from '../../functions/api-docs/files';
import { writeApiDocsFiles } from '../../infra/openapi/api-docs-files';
import { findRoute, routeKey, routes, type HttpFamily, type Route } from '../../shared/routes';
import { openApiDocument, rawResponses } from '../../infra/openapi/openapi-document';
import { newAccount } from '../support/accounts';
import { apiEvent, handlerCaller, json, type Body, type Keys } from '../support/events';
import { openApiChecker } from '../support/openapi-check';
import { tours, type TourCall } from '../support/openapi-tour';
import { startMailSink, stopMailSink } from '../support/senders';
import type { SesSink } from '../../infra/local/ses-sink';

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const openApi = openApiChecker();

function handlerOf(family: HttpFamily): Handler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- each family's real handler, by name
  return (require(`../../functions/${family}/handler`) as { handler: Handler }).handler;
}

const families = [...new Set(routes.map((route) => route.family))];
const accountFamilies = families.filter((family) => routes.some((route) => route.family === family && (route.auth ?? 'account') === 'account'));

type Call = TourCall;

/** JSON operations the tour cannot reach in a few calls, and why; each still has its documented success schema. */
const notToured: Readonly<Record<string, string>> = {
  'GET /api/single/send/resume': 'succeeds only for a running send the reputation check paused (many bounces), which takes a whole dispatch to reach',
};

/** The route keys whose real 200 answer was checked against the document, by the tour or the cases. */
const checkedSuccesses = new Set<string>();

/**
 * Calls a route with a JSON body and checks the answer against the document. The request is checked
 * too: the document accepts what the API accepts, and refuses what the API refuses with a 422.
 */
async function expectConforming(keys: Keys | undefined, family: HttpFamily, call: Call, status: number, checkRequest = true): Promise<Record<string, unknown>> {
  const route = findRoute(call.method, call.path).match?.route as Route;
  const key = routeKey(route);
  const requestErrors = [...openApi.query(key, call.query ?? {}), ...(call.body ? (openApi.body(key, call.body) as unknown[]) : [])];
  checkRequest &&= !call.form;
  if (checkRequest) expect({ key, refusedByDocument: requestErrors.length > 0 }).toEqual({ key, refusedByDocument: status === 422 });
  const answer = await handlerCaller(handlerOf(family))(keys, call.method, call.path, {
    ...(call.query ? { query: call.query } : {}),
    ...(call.body ? { body: json(call.body) as Body } : {}),
    ...(call.form ? { body: call.form } : {}),
  });
  expect({ key, status: answer.status, body: answer.status === status ? 'as expected' : answer.body }).toEqual({ key, status, body: 'as expected' });
  expect({ key, errors: openApi.response(key, answer.status, answer.body) }).toEqual({ key, errors: [] });
  if (status === 200) checkedSuccesses.add(key);
  return answer.body;
}

describe('the OpenAPI document and the real answers', () => {
  let keys: Keys & { account_id: number };
  let sink: SesSink;

  beforeAll(async () => {
    sink = await startMailSink();
    keys = await newAccount('OpenAPI conformance');
    // The api-docs function's files, as the stack packages them beside its bundle.
    process.env[apiDocsDirEnvName] = writeApiDocsFiles(mkdtempSync(join(tmpdir(), 'api-docs-')));
  });

  afterAll(async () => {
    await stopMailSink(sink);
    rmSync(process.env[apiDocsDirEnvName] as string, { recursive: true, force: true });
    delete process.env[apiDocsDirEnvName];
  });

  // One success and one failure of each family, as a client reading the document would make them.
  // (test-mails needs a stored send to succeed: its 401 and its 422s are checked below.)
  const cases: Record<string, { success: Call; failure: Call & { status: number } }> = {
    'contact-types': {
      success: { method: 'POST', path: 'contacts-type/add', body: { name: 'Customers' } },
      failure: { method: 'GET', path: 'contacts-type/view', query: { contact_type_id: 999999 }, status: 404 },
    },
    contacts: {
      success: { method: 'GET', path: 'contacts/list', query: { limit: 10 } },
      failure: { method: 'GET', path: 'contacts/details', query: { contact_id: 999999 }, status: 404 },
    },
    'custom-fields': {
      success: { method: 'POST', path: 'custom-fields/save', body: { field_name: 'age', field_type: 'number' } },
      failure: { method: 'POST', path: 'custom-fields/save', body: { field_name: 'colour', field_type: 'color' }, status: 422 },
    },
    segments: {
      success: { method: 'GET', path: 'segment/list' },
      failure: { method: 'DELETE', path: 'segment/delete', query: { segment_id: 999999 }, status: 404 },
    },
    'unsubscribe-groups': {
      success: { method: 'POST', path: 'unsubscribes-groups/save', body: { group_name: 'Weekly', description: 'The weekly letter', is_display: 1 } },
      failure: { method: 'GET', path: 'unsubscribes-groups/details', query: { id: 999999 }, status: 404 },
    },
    'global-unsubscribes': {
      success: { method: 'POST', path: 'global-unsubscribes/save', body: { email_address: 'gone@example.com, left@example.org' } },
      // (The list's addresses are checked by code the document can only describe in words, so no bad address here.)
      failure: { method: 'POST', path: 'global-unsubscribes/save', body: { email_address: ['gone@example.com'] }, status: 422 },
    },
    suppressions: {
      success: { method: 'GET', path: 'suppressions', query: { type: 'bounce' } },
      failure: { method: 'GET', path: 'suppressions', query: { type: 'unsubscribed' }, status: 422 },
    },
    webhooks: {
      success: { method: 'GET', path: 'webhooks' },
      failure: { method: 'DELETE', path: 'webhooks/delete', query: { id: 999999 }, status: 404 },
    },
    jobs: {
      success: { method: 'GET', path: 'jobs' },
      failure: { method: 'GET', path: 'jobs/details', query: { id: 999999 }, status: 404 },
    },
    'notification-recipients': {
      success: { method: 'POST', path: 'notification-recipient/save', body: { email_address: 'ops@example.com', email_owner: 'Ops' } },
      failure: { method: 'POST', path: 'notification-recipient/save', body: { email_address: 'ops@example.com' }, status: 422 },
    },
    templates: {
      success: { method: 'GET', path: 'get-design/template' },
      failure: { method: 'GET', path: 'assets/previews/no-such-design.svg', status: 404 },
    },
    'reference-data': {
      success: { method: 'GET', path: 'get/country-state-city', query: { country_id: 1 } },
      failure: { method: 'GET', path: 'get/country-state-city', query: { country_id: 'one' }, status: 422 },
    },
    senders: {
      success: { method: 'GET', path: 'senders' },
      failure: { method: 'GET', path: 'sender/details', query: { sender_id: 999999 }, status: 404 },
    },
    'single-sends': {
      success: { method: 'GET', path: 'single-send/list' },
      failure: { method: 'DELETE', path: 'single/send/delete', query: { utr: 'no-such-send' }, status: 404 },
    },
    automations: {
      success: { method: 'GET', path: 'automations' },
      failure: { method: 'GET', path: 'automations/details', query: { utr: 'no-such-automation' }, status: 404 },
    },
  };

  test.each(Object.entries(cases))('%s: a success and a failure answer as documented', async (family, { success, failure }) => {
    await expectConforming(keys, family as HttpFamily, success, 200);
    const { status, ...call } = failure;
    await expectConforming(keys, family as HttpFamily, call, status);
  });

  // Every JSON operation once, in each family's own order, on its own account: each success answer
  // validates against the schema documented for that very operation.
  test.each(Object.entries(tours))('%s: every operation\'s success answer is the one documented for it', async (_family, tour) => {
    await tour((caller, family, call) => expectConforming(caller, family, call, 200));
  });

  test.each(accountFamilies)('%s: without credentials, the 401 answer is as documented', async (family) => {
    const route = routes.find((candidate) => candidate.family === family && (candidate.auth ?? 'account') === 'account') as Route;
    // Credentials come first: the route's own fields are not read.
    await expectConforming(undefined, family, { method: route.method, path: route.path }, 401, false);
  });

  test('api-docs: the document it serves is this document, and an unknown file is a documented 404', async () => {
    const served = await expectConforming(undefined, 'api-docs', { method: 'GET', path: 'openapi.json' }, 200);
    expect(served.paths).toEqual(openApiDocument().paths);
    // It names the API that served it, so the viewer's "Try it out" calls this API.
    expect(served.servers).toEqual([{ url: 'https://localhost' }]);
    await expectConforming(undefined, 'api-docs', { method: 'GET', path: 'docs/no-such-file.js' }, 404);
  });

  test('public-pages: a page, and a page refusing a broken link, answer in their documented status and media type', async () => {
    for (const token of ['broken', '']) {
      const result = await handlerOf('public-pages')(apiEvent({ method: 'GET', path: 'public/preferences', query: { token } }));
      const documented = openApi.operation('GET /api/public/preferences').responses[String(result.statusCode)];
      expect({ status: result.statusCode, media: Object.keys(documented?.content ?? {}) }).toEqual({
        status: 400,
        media: expect.arrayContaining([String(result.headers?.['content-type']).split(';')[0]]),
      });
    }
  });

  // Every account route with required fields, called with nothing: the 422 it answers names each
  // required field the document lists, and no field the document does not describe.
  const required = routes
    .filter((route) => (route.auth ?? 'account') === 'account' && openApi.fields(routeKey(route)).required.length > 0)
    .map((route) => [routeKey(route), route] as const);

  const familyAccounts = new Map<HttpFamily, Promise<Keys>>();
  const familyAccount = (family: HttpFamily): Promise<Keys> => {
    if (!familyAccounts.has(family)) familyAccounts.set(family, newAccount(`OpenAPI required fields of ${family}`));
    return familyAccounts.get(family) as Promise<Keys>;
  };

  test.each(required)('%s: an empty request fails on exactly the documented fields', async (key, route) => {
    // An account per family keeps the sweep far below the per-second request limit.
    const caller = await familyAccount(route.family);
    const answer = await handlerCaller(handlerOf(route.family))(caller, route.method, route.path, route.method === 'POST' ? { body: json({}) } : {});
    expect({ key, status: answer.status }).toEqual({ key, status: 422 });
    expect({ key, errors: openApi.response(key, 422, answer.body) }).toEqual({ key, errors: [] });
    const failed = Object.keys(answer.body.errors as object).map((name) => name.split('.')[0] as string);
    const documented = openApi.fields(key);
    expect({ key, undocumented: failed.filter((name) => !documented.names.includes(name)) }).toEqual({ key, undocumented: [] });
    expect({ key, notEnforced: documented.required.filter((name) => !failed.includes(name)) }).toEqual({ key, notEnforced: [] });
  });

  // Last: the tests above filled checkedSuccesses.
  test('the tour and the cases checked a real success answer of every JSON operation', () => {
    const jsonRoutes = routes.filter((route) => (rawResponses[routeKey(route)]?.mediaType ?? 'application/json') === 'application/json').map(routeKey);
    expect(jsonRoutes.filter((key) => !checkedSuccesses.has(key) && !(key in notToured))).toEqual([]);
    expect(Object.keys(notToured).filter((key) => !jsonRoutes.includes(key))).toEqual([]);
  });
});
