// The local adapter of the tenant port: SES's tenants played by items in the table. A tenant is
// created enabled; `npm run tenants:status` stands in for SES pausing or reinstating it, and the local
// SES sink refuses a paused tenant's mail as SES does (SendingPausedException).
import { standIn } from '../aws-call-watch';
import { config } from '../config';
import { getItem, putNewItem, updateExistingItem, updateItem } from '../table/records';
import { localTenantOf, localTenantStatus } from './local-tenant-status';
import type { Tenant, TenantAdapter, TenantSendingStatus } from './tenants';
import { localTenantKey } from './keys';

const { tenant } = localTenantStatus;

const tableTenants: TenantAdapter = {
  tenant,
  async createTenant(name) {
    // An ARN in SES's shape, so resource ARNs are built the same way as deployed.
    const item = { ...localTenantKey(name), entity: 'local-tenant', status: 'enabled', arn: `arn:aws:ses:${config().region}:000000000000:tenant/${name}/local` };
    if (await putNewItem(item)) return localTenantOf(name, item);
    return (await tenant(name)) as Tenant;
  },
  async associate(found, resourceArn) {
    // The sink takes mail from any address, so every resource "exists": the association is recorded.
    await updateItem({
      Key: localTenantKey(found.name),
      UpdateExpression: 'ADD #resources :resource',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#resources': 'resources' },
      ExpressionAttributeValues: { ':resource': new Set([resourceArn]) },
    });
    return true;
  },
};

/** The SES v2 calls the deployed adapter makes (shared/tenants/ses-tenants.ts), for a test that watches them. */
function reportedTenants(adapter: TenantAdapter): TenantAdapter {
  return {
    // The read side reports GetTenant itself (local-tenant-status.ts).
    tenant: adapter.tenant,
    createTenant: (name) => standIn({ service: 'sesv2', operation: 'CreateTenant', input: { TenantName: name } }, () => adapter.createTenant(name)),
    associate: (found, resourceArn) =>
      standIn({ service: 'sesv2', operation: 'CreateTenantResourceAssociation', input: { TenantName: found.name, ResourceArn: resourceArn } }, () =>
        adapter.associate(found, resourceArn),
      ),
  };
}

// A Lambda bundle keeps only the table adapter (see shared/aws-call-watch.ts); pure, so a bundle that never uses it drops it.
export const localTenants: TenantAdapter = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedTenants(tableTenants) : tableTenants;

/** What SES does to a tenant whose reputation suffers, or an operator's reinstatement: false when there is no such tenant. */
export async function setLocalTenantStatus(name: string, status: TenantSendingStatus): Promise<boolean> {
  return (await updateExistingItem(localTenantKey(name), { status })) !== undefined;
}

/** The resources associated with a local tenant (the sink and tests read them). */
export async function localTenantResources(name: string): Promise<string[]> {
  const resources = (await getItem(localTenantKey(name)))?.resources as Set<string> | undefined;
  return [...(resources ?? [])].sort();
}
