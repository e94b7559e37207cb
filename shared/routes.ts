// The one routing table: every HTTP route, its family (one Lambda each) and its operation. The CDK
// stack builds the HTTP API from it and the local gateway dispatches with it.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The HTTP families: one Lambda each, in `functions/<family>/handler.ts`. */
export type HttpFamily =
  | 'contact-types'
  | 'contacts'
  | 'custom-fields'
  | 'segments'
  | 'unsubscribe-groups'
  | 'global-unsubscribes'
  | 'notification-recipients'
  | 'templates'
  | 'reference-data'
  | 'senders'
  | 'single-sends'
  | 'automations'
  | 'jobs'
  | 'public-pages'
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
}

/** The API root below the host; every route's full path is `${apiPrefix}${route.path}`. */
export const apiPrefix = '/api/';

export const routes: readonly Route[] = [
  // Contact types
  { method: 'GET', path: 'contacts-type', family: 'contact-types', operation: 'list' },
  { method: 'POST', path: 'contacts-type/add', family: 'contact-types', operation: 'add' },
  { method: 'GET', path: 'contacts-type/view', family: 'contact-types', operation: 'view' },
  { method: 'POST', path: 'contacts-type/update', family: 'contact-types', operation: 'update' },
  { method: 'DELETE', path: 'contacts-type/delete', family: 'contact-types', operation: 'delete' },

  // Contacts
  { method: 'GET', path: 'contacts/import-status', family: 'contacts', operation: 'importStatus' },
  { method: 'GET', path: 'contacts/list', family: 'contacts', operation: 'list' },
  { method: 'POST', path: 'contacts/add', family: 'contacts', operation: 'add' },
  { method: 'GET', path: 'contacts/csv-sample/download', family: 'contacts', operation: 'csvSample' },
  { method: 'POST', path: 'contacts/upload-csv', family: 'contacts', operation: 'uploadCsv' },
  { method: 'GET', path: 'contacts/details', family: 'contacts', operation: 'details' },
  { method: 'POST', path: 'contacts/update', family: 'contacts', operation: 'update' },
  { method: 'DELETE', path: 'contacts/delete', family: 'contacts', operation: 'delete' },
  { method: 'POST', path: 'contacts/bulk-delete', family: 'contacts', operation: 'bulkDelete' },

  // Custom and reserved fields
  { method: 'GET', path: 'reserve-fields', family: 'custom-fields', operation: 'reserved' },
  { method: 'GET', path: 'custom-fields', family: 'custom-fields', operation: 'list' },
  { method: 'POST', path: 'custom-fields/save', family: 'custom-fields', operation: 'save' },
  { method: 'DELETE', path: 'custom-fields/delete', family: 'custom-fields', operation: 'delete' },

  // Segments
  { method: 'GET', path: 'segment/list', family: 'segments', operation: 'list' },
  { method: 'POST', path: 'segment/save', family: 'segments', operation: 'save' },
  { method: 'POST', path: 'segment/update', family: 'segments', operation: 'update' },
  { method: 'DELETE', path: 'segment/delete', family: 'segments', operation: 'delete' },
  { method: 'GET', path: 'segment/email/list', family: 'segments', operation: 'emailList', notFound: 'Record not found' },
  { method: 'POST', path: 'segment/email/store', family: 'segments', operation: 'emailStore' },
  { method: 'DELETE', path: 'segment/email/delete', family: 'segments', operation: 'emailDelete' },

  // Unsubscribe groups
  { method: 'GET', path: 'unsubscribes-groups', family: 'unsubscribe-groups', operation: 'list' },
  { method: 'POST', path: 'unsubscribes-groups/save', family: 'unsubscribe-groups', operation: 'save' },
  { method: 'GET', path: 'unsubscribes-groups/details', family: 'unsubscribe-groups', operation: 'details' },
  { method: 'POST', path: 'unsubscribes-groups/update', family: 'unsubscribe-groups', operation: 'update' },
  { method: 'POST', path: 'unsubscribes-groups/manually-add', family: 'unsubscribe-groups', operation: 'manuallyAdd' },
  { method: 'GET', path: 'unsubscribes-groups/recipients-list', family: 'unsubscribe-groups', operation: 'recipientsList' },
  { method: 'DELETE', path: 'unsubscribes-groups/recipients-delete', family: 'unsubscribe-groups', operation: 'recipientsDelete' },
  { method: 'POST', path: 'unsubscribes-groups/recipients-bulk-delete', family: 'unsubscribe-groups', operation: 'recipientsBulkDelete' },

  // Global unsubscribes
  { method: 'GET', path: 'global-unsubscribes', family: 'global-unsubscribes', operation: 'list' },
  { method: 'POST', path: 'global-unsubscribes/save', family: 'global-unsubscribes', operation: 'save' },
  { method: 'DELETE', path: 'global-unsubscribes/delete', family: 'global-unsubscribes', operation: 'delete' },
  { method: 'POST', path: 'global-unsubscribes/bulk-delete', family: 'global-unsubscribes', operation: 'bulkDelete' },

  // Notification recipients
  // Background jobs (contact-type deletes, segment rebuilds and purges, set-live enrolment)
  { method: 'GET', path: 'jobs', family: 'jobs', operation: 'list' },
  { method: 'GET', path: 'jobs/details', family: 'jobs', operation: 'details' },

  { method: 'GET', path: 'notification-recipients', family: 'notification-recipients', operation: 'list' },
  { method: 'POST', path: 'notification-recipient/save', family: 'notification-recipients', operation: 'save' },
  { method: 'DELETE', path: 'notification-recipient/delete', family: 'notification-recipients', operation: 'delete' },
  { method: 'POST', path: 'notification-recipient/bulk-delete', family: 'notification-recipients', operation: 'bulkDelete' },

  // Templates and dynamic content
  { method: 'GET', path: 'get-design/template', family: 'templates', operation: 'listTemplates' },
  { method: 'GET', path: 'get-dynamic/content', family: 'templates', operation: 'listDynamicContent' },

  // Reference data
  { method: 'GET', path: 'get/country-state-city', family: 'reference-data', operation: 'countryStateCity' },

  // Senders
  { method: 'GET', path: 'senders', family: 'senders', operation: 'list' },
  { method: 'POST', path: 'senders', family: 'senders', operation: 'list' },
  { method: 'POST', path: 'sender/save', family: 'senders', operation: 'save' },
  { method: 'GET', path: 'sender/details', family: 'senders', operation: 'details' },
  { method: 'POST', path: 'sender/update', family: 'senders', operation: 'update' },
  { method: 'DELETE', path: 'sender/delete', family: 'senders', operation: 'delete' },
  { method: 'GET', path: 'sender/resend-mail', family: 'senders', operation: 'resendMail' },

  // Public pages (no credentials; signed tokens)
  { method: 'GET', path: 'public/open', family: 'public-pages', operation: 'openPixel', auth: 'public' },
  { method: 'GET', path: 'public/preferences', family: 'public-pages', operation: 'showPreferences', auth: 'public' },
  { method: 'POST', path: 'public/preferences', family: 'public-pages', operation: 'changePreferences', auth: 'public' },
  { method: 'GET', path: 'public/unsubscribe', family: 'public-pages', operation: 'showPreferences', auth: 'public' },
  { method: 'POST', path: 'public/unsubscribe', family: 'public-pages', operation: 'oneClickUnsubscribe', auth: 'public' },
  { method: 'GET', path: 'assets/previews/{file}', family: 'templates', operation: 'previewImageFile', auth: 'public' },
  { method: 'GET', path: 'public/senders/confirm', family: 'public-pages', operation: 'showSenderConfirmation', auth: 'public' },
  { method: 'POST', path: 'public/senders/confirm', family: 'public-pages', operation: 'confirmSender', auth: 'public' },

  // Single sends
  { method: 'GET', path: 'single-send/list', family: 'single-sends', operation: 'list' },
  { method: 'POST', path: 'single/send/create', family: 'single-sends', operation: 'create' },
  { method: 'GET', path: 'single/send/duplicate', family: 'single-sends', operation: 'duplicate', notFound: 'Record not found' },
  { method: 'POST', path: 'single/send/duplicate', family: 'single-sends', operation: 'duplicate', notFound: 'Record not found' },
  { method: 'GET', path: 'single-send/details', family: 'single-sends', operation: 'details', notFound: 'Record not found' },
  { method: 'POST', path: 'single/send/update', family: 'single-sends', operation: 'update', notFound: 'Record not found' },
  { method: 'DELETE', path: 'single/send/delete', family: 'single-sends', operation: 'delete', notFound: 'Record not found' },
  { method: 'POST', path: 'single/send/bulk-delete', family: 'single-sends', operation: 'bulkDelete', notFound: 'Record not found' },

  // Automations
  { method: 'GET', path: 'automations', family: 'automations', operation: 'list' },
  { method: 'POST', path: 'automations/create', family: 'automations', operation: 'create' },
  { method: 'GET', path: 'automations/duplicate', family: 'automations', operation: 'duplicate', notFound: 'Record not found' },
  { method: 'GET', path: 'automations/details', family: 'automations', operation: 'details' },
  { method: 'GET', path: 'automations/pause', family: 'automations', operation: 'pause', notFound: 'Record not found' },
  { method: 'GET', path: 'automations/set-live', family: 'automations', operation: 'setLive', notFound: 'Record not found' },
  { method: 'DELETE', path: 'automations/delete', family: 'automations', operation: 'delete', notFound: 'Record not found' },
  { method: 'POST', path: 'automations/bulk-delete', family: 'automations', operation: 'bulkDelete', notFound: 'Record not found' },
  { method: 'GET', path: 'automations/schedule', family: 'automations', operation: 'schedules', notFound: 'Record not found' },
  { method: 'POST', path: 'automations/schedule/create', family: 'automations', operation: 'createSchedule' },
  { method: 'DELETE', path: 'automations/schedule/delete', family: 'automations', operation: 'deleteSchedule', notFound: 'Record not found' },
  { method: 'GET', path: 'automations/schedule/design/{token}', family: 'automations', operation: 'scheduleDesign', auth: 'public' },
  { method: 'GET', path: 'automations/schedule/image/{token}', family: 'automations', operation: 'scheduleImage', auth: 'public' },
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

export function routesOf(family: HttpFamily): Route[] {
  return routes.filter((route) => route.family === family);
}
