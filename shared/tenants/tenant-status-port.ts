// The tenant port's read side, chosen from the runtime: GetTenant deployed, the table's stand-in
// locally. Creating and associating live in tenant-port.ts. The delivery function bundles neither:
// a tenant paused in the middle of a send is read by the stall watchdog (shared/single-send-runs/stall-watchdog.ts).
import { config } from '../config';
import { currentTime } from '../time';
import { localTenantStatus } from './local-tenant-status';
import { recordTenantStatus } from './repository';
import { sesTenantStatus } from './ses-tenant-status';
import { noteTenantsUnavailable, tenantsOffered } from './tenant-availability';
import type { TenantSendingStatus, TenantStatusReader } from './tenants';

export { noteTenantsUnavailable, resetTenantAvailability, tenantsOffered } from './tenant-availability';

/** The read side for this runtime. */
export function tenantStatus(): TenantStatusReader {
  return config().runtime === 'local' ? localTenantStatus : sesTenantStatus();
}

/**
 * Read the tenant's sending status from SES and store it on the account, so the next dispatch or
 * automation run holds (or releases) the account's mail. Undefined when there is no such tenant or
 * the region has no tenants.
 */
export async function recheckTenantStatus(accountId: number, tenantName: string): Promise<TenantSendingStatus | undefined> {
  if (!tenantsOffered()) return undefined;
  try {
    const tenant = await tenantStatus().tenant(tenantName);
    if (!tenant) return undefined;
    await recordTenantStatus(accountId, tenant.status, currentTime().toISOString());
    return tenant.status;
  } catch (error) {
    if (noteTenantsUnavailable(error)) return undefined;
    throw error;
  }
}
