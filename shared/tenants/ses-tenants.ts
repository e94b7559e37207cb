// The SES adapter of the tenant port (API v2): CreateTenant, GetTenant and
// CreateTenantResourceAssociation. The client is injectable so the adapter is tested on canned answers.
import { CreateTenantCommand, CreateTenantResourceAssociationCommand, type CreateTenantCommandOutput } from '@aws-sdk/client-sesv2';
import { pacedCalls } from '../rate-limits/ses-control';
import { errorName, sesTenantStatusReader, tenantClient, unavailableOrSame, type SesTenantClient } from './ses-tenant-status';
import { statusOf, TenantLimitError, type TenantAdapter } from './tenants';

export function sesTenantAdapter(client: () => SesTenantClient): TenantAdapter {
  const reader = sesTenantStatusReader(client);
  return {
    ...reader,
    async createTenant(name) {
      try {
        const answer = (await client().send(new CreateTenantCommand({ TenantName: name }))) as CreateTenantCommandOutput;
        if (!answer.TenantArn) throw new Error(`SES created tenant ${name} but returned no TenantArn`);
        return { name, arn: answer.TenantArn, status: statusOf(answer.SendingStatus) };
      } catch (error) {
        if (errorName(error) === 'LimitExceededException') throw new TenantLimitError(name, { cause: error });
        // Made by an earlier attempt that lost its answer: the tenant of that name is ours.
        if (errorName(error) !== 'AlreadyExistsException') throw unavailableOrSame(error);
      }
      const existing = await reader.tenant(name);
      if (!existing) throw new Error(`SES says tenant ${name} exists but does not find it`);
      return existing;
    },
    async associate(tenant, resourceArn) {
      try {
        await client().send(new CreateTenantResourceAssociationCommand({ TenantName: tenant.name, ResourceArn: resourceArn }));
        return true;
      } catch (error) {
        if (errorName(error) === 'AlreadyExistsException') return true;
        if (errorName(error) === 'NotFoundException') return false;
        throw unavailableOrSame(error);
      }
    },
  };
}

let adapter: TenantAdapter | undefined;

/** The adapter on the container's SES client, each call held to the stage's control-plane pace. */
export function sesTenants(): TenantAdapter {
  adapter ??= sesTenantAdapter(pacedCalls(tenantClient));
  return adapter;
}
