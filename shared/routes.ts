// The one routing table: every HTTP route, its family (one Lambda each) and its operation. The CDK
// stack builds the HTTP API from it and the local gateway dispatches with it.
// Over 300 lines on purpose: it is one table, one line a route, read top to bottom as the API's map.

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The HTTP families: one Lambda each, in `functions/<family>/handler.ts`. */
export type HttpFamily =
  | 'contact-types'
  | 'contacts'
  | 'custom-fields'
  | 'segments'
  | 'unsubscribe-groups'
  | 'global-unsubscribes'
  | 'suppressions'
  | 'test-mails'
  | 'notification-recipients'
  | 'templates'
  | 'reference-data'
  | 'senders'
  | 'sender-domains'
  | 'single-sends'
  | 'automations'
  | 'jobs'
  | 'webhooks'
  | 'public-pages'
  | 'api-docs'
  | 'fallback';

/** The spec's two not-found texts; which one an operation answers is part of the contract. */
export type NotFoundText = 'Record Not Found' | 'Record not found';

export interface Route {
  method: HttpMethod;
  /** Path below the API root (`/api/`), without a leading slash; `{name}` marks a path parameter. */
  path: string;
  family: HttpFamily;
  operation: string;
  /** `account` (default) needs the PublicKey/SecretKey headers; `public` is for pages and links sent in mail. */
  auth?: 'account' | 'public';
  /** The plain not-found text this operation answers with. Default `Record Not Found`. */
  notFound?: NotFoundText;
  /**
   * A public route the service hands out links to, built from the public base URL (mail, SES's
   * verification mail, an automation step's preview links): deployed, served behind the per-client-address limit.
   */
  link?: true;
}

/** The API root below the host; every route's full path is `${apiPrefix}${route.path}`. */
export const apiPrefix = '/api/';

/** One route of a family: method, path below the API root, operation and, when needed, options. */
type RouteEntry = readonly [method: HttpMethod, path: string, operation: string, options?: Pick<Route, 'auth' | 'notFound' | 'link'>];

/** The spec's lower-case not-found text. */
const notFoundLower = { notFound: 'Record not found' } as const;
/** A public route no link of ours leads to (the API docs): no credentials. */
const publicRoute = { auth: 'public' } as const;
/** A page or link sent in mail (or built like one from the public base URL): no credentials. */
const linkRoute = { auth: 'public', link: true } as const;

/**
 * A family's routes. The table is written as tuples, grouped by family, because every function's
 * bundle carries it whole: written out as objects it cost about 5 KB more in each.
 */
function familyRoutes(family: HttpFamily, entries: readonly RouteEntry[]): Route[] {
  return entries.map(([method, path, operation, options]) => ({ method, path, family, operation, ...options }));
}

export const routes: readonly Route[] = [
  // Contact types
  ...familyRoutes('contact-types', [
    ['GET', 'contacts-type', 'list'],
    ['POST', 'contacts-type/add', 'add'],
    ['GET', 'contacts-type/view', 'view'],
    ['POST', 'contacts-type/update', 'update'],
    ['DELETE', 'contacts-type/delete', 'delete'],
  ]),

  // Contacts
  ...familyRoutes('contacts', [
    ['GET', 'contacts/import-status', 'importStatus'],
    ['GET', 'contacts/list', 'list'],
    ['POST', 'contacts/add', 'add'],
    ['GET', 'contacts/csv-sample/download', 'csvSample'],
    ['POST', 'contacts/upload-csv', 'uploadCsv'],
    ['GET', 'contacts/details', 'details'],
    ['POST', 'contacts/update', 'update'],
    ['DELETE', 'contacts/delete', 'delete'],
    ['POST', 'contacts/bulk-delete', 'bulkDelete'],
    ['POST', 'contacts/bulk-upsert', 'bulkUpsert'],
    ['GET', 'contacts/activity', 'activity'],
    ['POST', 'contacts/resend-confirmation', 'resendConfirmation'],
  ]),

  // Custom and reserved fields
  ...familyRoutes('custom-fields', [
    ['GET', 'reserve-fields', 'reserved'],
    ['GET', 'custom-fields', 'list'],
    ['POST', 'custom-fields/save', 'save'],
    ['DELETE', 'custom-fields/delete', 'delete'],
  ]),

  // Segments
  ...familyRoutes('segments', [
    ['GET', 'segment/list', 'list'],
    ['POST', 'segment/save', 'save'],
    ['POST', 'segment/update', 'update'],
    ['DELETE', 'segment/delete', 'delete'],
    ['GET', 'segment/email/list', 'emailList', notFoundLower],
    ['POST', 'segment/email/store', 'emailStore'],
    ['DELETE', 'segment/email/delete', 'emailDelete'],
  ]),

  // Unsubscribe groups
  ...familyRoutes('unsubscribe-groups', [
    ['GET', 'unsubscribes-groups', 'list'],
    ['POST', 'unsubscribes-groups/save', 'save'],
    ['GET', 'unsubscribes-groups/details', 'details'],
    ['POST', 'unsubscribes-groups/update', 'update'],
    ['POST', 'unsubscribes-groups/manually-add', 'manuallyAdd'],
    ['GET', 'unsubscribes-groups/recipients-list', 'recipientsList'],
    ['DELETE', 'unsubscribes-groups/recipients-delete', 'recipientsDelete'],
    ['POST', 'unsubscribes-groups/recipients-bulk-delete', 'recipientsBulkDelete'],
  ]),

  // Global unsubscribes
  ...familyRoutes('global-unsubscribes', [
    ['GET', 'global-unsubscribes', 'list'],
    ['POST', 'global-unsubscribes/save', 'save'],
    ['DELETE', 'global-unsubscribes/delete', 'delete'],
    ['POST', 'global-unsubscribes/bulk-delete', 'bulkDelete'],
  ]),

  // Suppressions (addresses SES reported as hard-bounced or complaining)
  ...familyRoutes('suppressions', [
    ['GET', 'suppressions', 'list'],
    ['DELETE', 'suppressions/delete', 'delete'],
  ]),

  // Background jobs (contact-type deletes, segment rebuilds and purges, set-live enrolment)
  ...familyRoutes('jobs', [
    ['GET', 'jobs', 'list'],
    ['GET', 'jobs/details', 'details'],
  ]),

  // Notification recipients
  ...familyRoutes('notification-recipients', [
    ['GET', 'notification-recipients', 'list'],
    ['POST', 'notification-recipient/save', 'save'],
    ['DELETE', 'notification-recipient/delete', 'delete'],
    ['POST', 'notification-recipient/bulk-delete', 'bulkDelete'],
  ]),

  // Outbound webhooks
  ...familyRoutes('webhooks', [
    ['GET', 'webhooks', 'list'],
    ['POST', 'webhooks/save', 'save'],
    ['DELETE', 'webhooks/delete', 'delete'],
  ]),

  // Templates and dynamic content
  ...familyRoutes('templates', [
    ['GET', 'get-design/template', 'listTemplates'],
    ['GET', 'get-dynamic/content', 'listDynamicContent'],
    ['GET', 'assets/previews/{file}', 'previewImageFile', linkRoute],
  ]),

  // Reference data
  ...familyRoutes('reference-data', [
    ['GET', 'get/country-state-city', 'countryStateCity'],
  ]),

  // Senders
  ...familyRoutes('senders', [
    ['GET', 'senders', 'list'],
    ['POST', 'senders', 'list'],
    ['POST', 'sender/save', 'save'],
    ['GET', 'sender/details', 'details'],
    ['POST', 'sender/update', 'update'],
    ['DELETE', 'sender/delete', 'delete'],
    ['GET', 'sender/resend-mail', 'resendMail'],
  ]),

  // Sender domains (Easy DKIM: the CNAMEs to publish, the status refreshed from SES)
  ...familyRoutes('sender-domains', [
    ['GET', 'sender-domains', 'list'],
    ['POST', 'sender-domains/save', 'save'],
    ['GET', 'sender-domains/details', 'details'],
    ['DELETE', 'sender-domains/delete', 'delete'],
  ]),

  // Public pages (no credentials; signed tokens)
  ...familyRoutes('public-pages', [
    ['GET', 'public/open', 'openPixel', linkRoute],
    ['GET', 'public/click', 'followClick', linkRoute],
    // Link checkers and scanners probe with HEAD: answered like GET (a bot's click, still redirected).
    ['HEAD', 'public/click', 'followClick', linkRoute],
    ['GET', 'public/preferences', 'showPreferences', linkRoute],
    ['POST', 'public/preferences', 'changePreferences', linkRoute],
    ['GET', 'public/unsubscribe', 'showPreferences', linkRoute],
    ['POST', 'public/unsubscribe', 'oneClickUnsubscribe', linkRoute],
    ['GET', 'public/senders/confirm', 'showSenderConfirmation', linkRoute],
    ['POST', 'public/senders/confirm', 'confirmSender', linkRoute],
    ['GET', 'public/senders/verified', 'showSenderVerified', linkRoute],
    ['GET', 'public/senders/verification-failed', 'showSenderVerificationFailed', linkRoute],
    ['GET', 'public/opt-in/confirm', 'showOptInConfirmation', linkRoute],
    ['POST', 'public/opt-in/confirm', 'confirmOptInSubscription', linkRoute],
  ]),

  // API docs (no credentials): the OpenAPI document and its viewer, both generated from this table
  ...familyRoutes('api-docs', [
    ['GET', 'openapi.json', 'document', publicRoute],
    ['GET', 'docs', 'viewer', publicRoute],
    ['GET', 'docs/{file}', 'viewerFile', publicRoute],
  ]),

  // Single sends
  ...familyRoutes('single-sends', [
    ['GET', 'single-send/list', 'list'],
    ['POST', 'single/send/create', 'create'],
    ['GET', 'single/send/duplicate', 'duplicate', notFoundLower],
    ['POST', 'single/send/duplicate', 'duplicate', notFoundLower],
    ['GET', 'single-send/details', 'details', notFoundLower],
    ['GET', 'single-send/stats', 'stats', notFoundLower],
    ['POST', 'single/send/update', 'update', notFoundLower],
    ['DELETE', 'single/send/delete', 'delete', notFoundLower],
    ['POST', 'single/send/bulk-delete', 'bulkDelete', notFoundLower],
    ['GET', 'single/send/resume', 'resume', notFoundLower],
    ['POST', 'single/send/resend', 'resend', notFoundLower],
  ]),

  // Test mails and previews (the mail of a send or step, to the caller's addresses or shown)
  ...familyRoutes('test-mails', [
    ['POST', 'single/send/test', 'singleSendTest', notFoundLower],
    ['GET', 'single-send/preview', 'singleSendPreview', notFoundLower],
    ['POST', 'automations/schedule/test', 'stepTest', notFoundLower],
  ]),

  // Automations
  ...familyRoutes('automations', [
    ['GET', 'automations', 'list'],
    ['POST', 'automations/create', 'create'],
    ['GET', 'automations/duplicate', 'duplicate', notFoundLower],
    ['GET', 'automations/details', 'details'],
    ['GET', 'automations/stats', 'stats'],
    ['GET', 'automations/pause', 'pause', notFoundLower],
    ['GET', 'automations/set-live', 'setLive', notFoundLower],
    ['DELETE', 'automations/delete', 'delete', notFoundLower],
    ['POST', 'automations/bulk-delete', 'bulkDelete', notFoundLower],
    ['GET', 'automations/schedule', 'schedules', notFoundLower],
    ['POST', 'automations/schedule/create', 'createSchedule'],
    ['DELETE', 'automations/schedule/delete', 'deleteSchedule', notFoundLower],
    ['GET', 'automations/schedule/design/{token}', 'scheduleDesign', linkRoute],
    ['GET', 'automations/schedule/image/{token}', 'scheduleImage', linkRoute],
  ]),
];

/**
 * The families that have routes, plus `fallback` (the catch-all for unknown paths): the functions
 * the stack deploys and the local gateway loads.
 */
export const httpFamilies: readonly HttpFamily[] = [...new Set(routes.map((route) => route.family)), 'fallback'];

/** API Gateway route key of a route, e.g. `GET /api/contacts-type`. */
export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${apiPrefix}${route.path}`;
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** Path text percent-decoded, or undefined when its escapes are broken (`%E0%A4%A`): such a path names nothing. */
export function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const patternParts = pattern.split('/');
  const pathParts = path.split('/');
  if (patternParts.length !== pathParts.length) return undefined;
  const parameters: Record<string, string> = {};
  for (let i = 0; i < patternParts.length; i++) {
    const expected = patternParts[i] as string;
    const actual = pathParts[i] as string;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      const value = percentDecoded(actual);
      if (value === undefined || value === '') return undefined;
      parameters[expected.slice(1, -1)] = value;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return parameters;
}

/** Strip everything up to and including the API root, and any trailing slash. */
export function pathBelowApi(rawPath: string): string | undefined {
  const at = rawPath.indexOf(apiPrefix);
  if (at === -1) return undefined;
  return rawPath.slice(at + apiPrefix.length).replace(/\/+$/, '');
}

/**
 * Find the route for a method and a path below the API root. `allowed` lists the methods the path
 * does accept, so a caller can tell 405 (known path, wrong method) from 404 (unknown path).
 */
export function findRoute(
  method: string,
  path: string,
  table: readonly Route[] = routes,
): { match?: RouteMatch; allowed: HttpMethod[] } {
  const allowed: HttpMethod[] = [];
  for (const route of table) {
    const pathParameters = matchPath(route.path, path);
    if (!pathParameters) continue;
    if (route.method === method.toUpperCase()) return { match: { route, pathParameters }, allowed: [route.method] };
    allowed.push(route.method);
  }
  return { allowed };
}

/** The routes links are built to: deployed, also served by the public links' REST API (infra/stack/public-links-api.ts). */
export const linkRoutes: readonly Route[] = routes.filter((route) => route.link);

export function routesOf(family: HttpFamily): Route[] {
  return routes.filter((route) => route.family === family);
}
