// What the public links' REST API answers before any function does, one definition for the stack (API
// Gateway and its WAF web ACL) and the local gateway (which answers the same): the stage in the path,
// the per-client-address limit and its 429, and the 404 of a path it does not serve.
import { apiPrefix } from '../shared/routes';

/** The REST API's one stage; its URLs carry it in the path: `https://<id>.execute-api.<region>.amazonaws.com/links/api/`. */
export const publicLinksStage = 'links';

/** Where the public links' API root is below the host: `/links/api/`. */
export const publicLinksPrefix = `/${publicLinksStage}${apiPrefix}`;

/**
 * The WAF rate rule's evaluation window, the shortest WAF offers: a flooding address is refused
 * soonest, and let in again soonest once it stops.
 */
export const clientLimitWindowSeconds = 60;

/**
 * Requests one client address may make to the public links per window (`-c publicClientLimit`).
 * Ten a second on average: no reader comes near it, while it takes ten addresses at the limit to
 * fill the stage's default route throttle (100 a second). Mail-client image proxies and link
 * scanners share addresses, so large sends may need more (docs/operations.md: Rate limits).
 */
export const defaultClientLimit = 600;

/** WAF's lowest rate limit. */
export const minClientLimit = 10;

/** The refusal of an address past its limit, in the API's error envelope, with the `Retry-After` of a whole window. */
export function clientLimitResponse(limit: number): { statusCode: 429; headers: Record<string, string>; body: string } {
  return {
    statusCode: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(clientLimitWindowSeconds) },
    body: JSON.stringify({ status: 'failed', errors: `Too many requests: at most ${limit} per minute per client address. Try again in 1 minute.` }),
  };
}

/**
 * The REST API's answer to a path or method it has no route for (API Gateway's MISSING_AUTHENTICATION_TOKEN,
 * a 403 by default): the 404 the HTTP API's catch-all gives.
 */
export const notServedResponse = { statusCode: 404, body: JSON.stringify({ status: 'failed', errors: 'Not Found.' }) } as const;
