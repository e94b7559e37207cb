// Whether this container may ask SES about tenants: false once SES said the region offers no tenant
// management. Apart from the adapters, so the delivery function can ask it without bundling them.
import { log } from '../log';
import { TenantsUnavailableError } from './tenants';

let unavailableIn: string | undefined;

/** Whether tenant management may be asked in this container: false once SES said the region has none. */
export function tenantsOffered(): boolean {
  return unavailableIn === undefined;
}

/**
 * True (after logging it once per container) when the error says the region offers no tenants: the
 * caller then goes on without a tenant. Any other error is the caller's to handle.
 */
export function noteTenantsUnavailable(error: unknown): boolean {
  if (!(error instanceof TenantsUnavailableError)) return false;
  if (unavailableIn === undefined) {
    unavailableIn = error.region;
    log.warn(`SES tenant management is not available in ${error.region}; sending without tenants`);
  }
  return true;
}

/** Forget the region's verdict (tests switch between a region with tenants and one without). */
export function resetTenantAvailability(): void {
  unavailableIn = undefined;
}
