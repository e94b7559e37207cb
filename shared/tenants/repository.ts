// The account's record of its SES tenant, on the account's profile item: its name and ARN, the
// sending status last seen and when, and the identities associated with it. The send path reads it
// with the profile's one GetItem; the tenant service writes it.
import { accountKey } from '../accounts/keys';
import { conditionHeld, getItem, updateItem } from '../table/records';
import { tenantLimitKey } from './keys';
import type { TenantSendingStatus } from './tenants';

export interface AccountTenant {
  name: string;
  arn: string;
  status: TenantSendingStatus;
  /** ISO 8601: when the status was last read from SES (or SES refused a mail as paused). */
  checked_at: string;
  /** Addresses and domains associated with the tenant: a mail goes under the tenant only from these. */
  identities: string[];
}

const tenantAttribute = 'tenant';

/** The account's tenant, when one was made for it. */
export async function getAccountTenant(accountId: number): Promise<AccountTenant | undefined> {
  const tenant = (await getItem(accountKey(accountId)))?.[tenantAttribute] as AccountTenant | undefined;
  return tenant ? { ...tenant, identities: [...(tenant.identities ?? [])] } : undefined;
}

async function updateProfile(accountId: number, expression: string, values: Record<string, unknown>, names: Record<string, string> = {}): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: accountKey(accountId),
      UpdateExpression: expression,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#tenant': tenantAttribute, ...names },
      ExpressionAttributeValues: values,
    }),
  );
}

/** Store the account's tenant record whole; false when the account does not exist. */
export function recordAccountTenant(accountId: number, tenant: AccountTenant): Promise<boolean> {
  return updateProfile(accountId, 'SET #tenant = :tenant', { ':tenant': tenant });
}

/** Store the tenant's sending status as just seen. */
export function recordTenantStatus(accountId: number, status: TenantSendingStatus, checkedAt: string): Promise<boolean> {
  return updateProfile(accountId, 'SET #tenant.#status = :status, #tenant.checked_at = :checked', { ':status': status, ':checked': checkedAt }, { '#status': 'status' });
}

/** Store the identities now associated with the tenant. */
export function recordTenantIdentities(accountId: number, identities: readonly string[]): Promise<boolean> {
  return updateProfile(accountId, 'SET #tenant.identities = :identities', { ':identities': [...new Set(identities)].sort() });
}

/** Until when (epoch ms) SES's tenant quota was last noted as reached; undefined when it is not. */
export async function tenantLimitReachedUntil(now: number): Promise<number | undefined> {
  const until = Number((await getItem(tenantLimitKey))?.until ?? 0);
  return until > now ? until : undefined;
}

/** Note that SES refused a new tenant for the quota, until `until` (epoch ms); TTL removes the note after. */
export async function noteTenantLimitReached(until: number): Promise<void> {
  await updateItem({
    Key: tenantLimitKey,
    UpdateExpression: 'SET #entity = :entity, #until = :until, expires_at = :expires',
    ExpressionAttributeNames: { '#entity': 'entity', '#until': 'until' },
    ExpressionAttributeValues: { ':entity': 'ses-tenant-limit', ':until': until, ':expires': Math.ceil(until / 1000) + 86_400 },
  });
}
