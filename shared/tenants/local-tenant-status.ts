// The read side of the local tenant stand-in (local-tenants.ts): what the stall watchdog bundles, with
// no write a deployed function would never make.
import { standIn } from '../aws-call-watch';
import { getItem, type Item } from '../table/records';
import { localTenantKey } from './keys';
import type { Tenant, TenantSendingStatus, TenantStatusReader } from './tenants';

export function localTenantOf(name: string, item: Item): Tenant {
  return { name, arn: String(item.arn), status: item.status as TenantSendingStatus };
}

const tableTenantStatus: TenantStatusReader = {
  async tenant(name) {
    const item = await getItem(localTenantKey(name));
    return item ? localTenantOf(name, item) : undefined;
  },
};

/** SES's GetTenant, which the deployed reader calls (shared/tenants/ses-tenant-status.ts), for a test that watches it. */
function reportedTenantStatus(reader: TenantStatusReader): TenantStatusReader {
  return { tenant: (name) => standIn({ service: 'sesv2', operation: 'GetTenant', input: { TenantName: name } }, () => reader.tenant(name)) };
}

// A Lambda bundle keeps only the table reader (see shared/aws-call-watch.ts).
export const localTenantStatus: TenantStatusReader = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedTenantStatus(tableTenantStatus) : tableTenantStatus;
