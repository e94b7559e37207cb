// The read side of the local tenant stand-in (local-tenants.ts): what the stall watchdog bundles, with
// no write a deployed function would never make.
import { getItem, type Item } from '../table/records';
import { localTenantKey } from './keys';
import type { Tenant, TenantSendingStatus, TenantStatusReader } from './tenants';

export function localTenantOf(name: string, item: Item): Tenant {
  return { name, arn: String(item.arn), status: item.status as TenantSendingStatus };
}

export const localTenantStatus: TenantStatusReader = {
  async tenant(name) {
    const item = await getItem(localTenantKey(name));
    return item ? localTenantOf(name, item) : undefined;
  },
};
