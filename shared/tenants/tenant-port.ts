// The tenant port: SES tenants deployed (shared/tenants/ses-tenants.ts), items in the table locally
// (shared/tenants/local-tenants.ts). The adapter is chosen here, and only here, from the runtime. The
// read side has its own chooser (tenant-status-port.ts) so the delivery function bundles no creating call.
import { config } from '../config';
import { localTenants } from './local-tenants';
import { sesTenants } from './ses-tenants';
import type { TenantAdapter } from './tenants';

export type { Tenant, TenantAdapter, TenantSendingStatus } from './tenants';

/** The adapter for this runtime. */
export function tenants(): TenantAdapter {
  return config().runtime === 'local' ? localTenants : sesTenants();
}
