// One SES tenant per account, as use cases: made on account creation and lazily before an account's
// mail goes (a send's dispatch, an automation run), with the configuration set and the account's
// identities associated, and its sending status read from SES into the account's record. Where the
// region offers no tenants, every call here answers undefined and mail goes without a tenant.
import { config } from '../config';
import { describeError, log } from '../log';
import { currentTime } from '../time';
import { listSenderDomains } from '../identities/domain-repository';
import { domainAndParents } from '../identities/identities';
import { sendingSettings } from '../sending/settings';
import { getAccountTenant, recordAccountTenant, recordTenantIdentities, recordTenantStatus, type AccountTenant } from './repository';
import { tenantNameForMail } from './sending-tenant';
import { tenants } from './tenant-port';
import { noteTenantsUnavailable, tenantsOffered } from './tenant-availability';
import { sesResourceArn, tenantNameOf, TenantsUnavailableError, type Tenant } from './tenants';

export type { AccountTenant } from './repository';

/** Run a tenant call; undefined (logged once per container) where the region has no tenants. */
async function whereOffered<T>(call: () => Promise<T>): Promise<T | undefined> {
  if (!tenantsOffered()) return undefined;
  try {
    return await call();
  } catch (error) {
    if (noteTenantsUnavailable(error)) return undefined;
    throw error;
  }
}

/** Make the tenant and associate what every mail of the account names: the configuration set and its domains. */
async function createAccountTenant(accountId: number): Promise<AccountTenant | undefined> {
  const port = tenants();
  const tenant = await port.createTenant(tenantNameOf(config().tableName, accountId));
  const { configurationSetName } = sendingSettings();
  if (configurationSetName) await port.associate(tenant, sesResourceArn(tenant, 'configuration-set', configurationSetName));
  const identities: string[] = [];
  for (const { domain } of await listSenderDomains(accountId)) {
    if (await port.associate(tenant, sesResourceArn(tenant, 'identity', domain))) identities.push(domain);
  }
  const record: AccountTenant = { name: tenant.name, arn: tenant.arn, status: tenant.status, checked_at: currentTime().toISOString(), identities };
  if (!(await recordAccountTenant(accountId, record))) return undefined;
  log.info('SES tenant made for the account', { accountId, tenant: tenant.name });
  return record;
}

/** A status read this recently is trusted without asking SES again (a burst of dispatches asks once). */
export const tenantStatusMaxAgeMs = 60_000;

/**
 * The account's tenant with its sending status as SES says now (stored when read), made first when
 * the account has none. Undefined where the region offers no tenants, or the account is gone. SES
 * failing to answer (a throttle) is logged: the status last stored stands, and an account whose tenant
 * cannot be made now sends without one until a later run makes it.
 */
export function ensureAccountTenant(accountId: number): Promise<AccountTenant | undefined> {
  return whereOffered(async () => {
    const stored = await getAccountTenant(accountId);
    if (stored && currentTime().getTime() - Date.parse(stored.checked_at) < tenantStatusMaxAgeMs) return stored;
    try {
      if (!stored) return await createAccountTenant(accountId);
      const current = await tenants().tenant(stored.name);
      // Deleted outside the service: made again, with its associations.
      if (!current) return await createAccountTenant(accountId);
      const checkedAt = currentTime().toISOString();
      if (current.status !== stored.status) log.info('SES tenant sending status changed', { accountId, tenant: stored.name, status: current.status });
      await recordTenantStatus(accountId, current.status, checkedAt);
      return { ...stored, status: current.status, checked_at: checkedAt };
    } catch (error) {
      if (error instanceof TenantsUnavailableError) throw error;
      log.warn('SES tenant could not be made or read; the status last seen stands', { accountId, ...describeError(error) });
      return stored;
    }
  });
}

/**
 * Associate an SES identity (an address or a domain, or its ARN) with the account's tenant, made first
 * if need be. True when associated; false when SES has no such identity (yet) or the region has no tenants.
 */
export async function associateIdentity(accountId: number, identity: string): Promise<boolean> {
  const tenant = await ensureAccountTenant(accountId);
  if (!tenant) return false;
  const name = identity.startsWith('arn:') ? identity.slice(identity.indexOf(':identity/') + ':identity/'.length) : identity.trim().toLowerCase();
  if (tenant.identities.includes(name)) return true;
  const arn = identity.startsWith('arn:') ? identity : sesResourceArn(tenant, 'identity', name);
  const associated = await whereOffered(() => tenants().associate(tenantOf(tenant), arn));
  if (associated) await recordTenantIdentities(accountId, [...tenant.identities, name]);
  return associated === true;
}

function tenantOf(record: AccountTenant): Tenant {
  return { name: record.name, arn: record.arn, status: record.status };
}

/**
 * Make sure the identity SES will send `fromEmail` under is associated with the tenant: the address's
 * own identity, and the nearest of its domain and parent domains that SES has. None may exist (a sender
 * verified before SES identities were used): the mail then goes without the tenant
 * (shared/tenants/sending-tenant.ts) rather than refused.
 */
export async function associateSenderIdentity(accountId: number, tenant: AccountTenant, fromEmail: string): Promise<AccountTenant> {
  const address = fromEmail.trim().toLowerCase();
  // Already sent under the tenant: the one rule of which identities cover an address decides.
  if (tenantNameForMail(tenant, address)) return tenant;
  const domains = domainAndParents(address.slice(address.lastIndexOf('@') + 1));
  const associates = (identity: string) => whereOffered(() => tenants().associate(tenantOf(tenant), sesResourceArn(tenant, 'identity', identity)));
  const added: string[] = [];
  if (await associates(address)) added.push(address);
  for (const domain of domains) {
    if (!(await associates(domain))) continue;
    added.push(domain);
    break;
  }
  if (added.length === 0) return tenant;
  const identities = [...tenant.identities, ...added];
  await recordTenantIdentities(accountId, identities);
  return { ...tenant, identities };
}
