// One SES tenant per account, as use cases: made on account creation and lazily before an account's
// mail goes (a send's dispatch, an automation run), with the configuration set and the account's
// identities associated, and its sending status read from SES into the account's record. Where the
// region offers no tenants, every call here answers undefined and mail goes without a tenant.
import { config } from '../config';
import { describeError, log } from '../log';
import { countMetric } from '../metrics';
import { currentTime } from '../time';
import { listSenderDomains } from '../identities/domain-repository';
import { domainAndParents } from '../identities/identities';
import { sendingSettings } from '../delivery/settings';
import {
  getAccountTenant,
  noteTenantLimitReached,
  recordAccountTenant,
  recordTenantIdentities,
  recordTenantStatus,
  tenantLimitReachedUntil,
  type AccountTenant,
} from '../tenants/repository';
import { tenantNameForMail } from '../tenants/sending-tenant';
import { tenants } from '../tenants/tenant-port';
import { noteTenantsUnavailable, tenantsOffered } from '../tenants/tenant-availability';
import { sesResourceArn, TenantLimitError, tenantNameOf, TenantsUnavailableError, type Tenant } from '../tenants/tenants';

export type { AccountTenant } from '../tenants/repository';

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

/**
 * Associate a resource, or say why not: false when SES has no such resource (yet), and false too when
 * SES throttles or refuses the call, logged: the mail then goes without the tenant, and the next
 * dispatch or run, finding the identity unrecorded, associates it again.
 */
async function tryAssociate(accountId: number, tenant: Tenant, resourceArn: string): Promise<boolean> {
  try {
    return (await whereOffered(() => tenants().associate(tenant, resourceArn))) === true;
  } catch (error) {
    log.warn('SES tenant association failed; the mail goes without the tenant and it is tried again later', { accountId, tenant: tenant.name, resourceArn, ...describeError(error) });
    return false;
  }
}

/**
 * Make the tenant and associate what every mail of the account names: the configuration set (without
 * which no mail could go under it, so its failure fails the making) and its domains (each retried at
 * dispatch when it fails now).
 */
async function createAccountTenant(accountId: number): Promise<AccountTenant | undefined> {
  const port = tenants();
  const tenant = await port.createTenant(tenantNameOf(config().tableName, accountId));
  const { configurationSetName } = sendingSettings();
  if (configurationSetName) await port.associate(tenant, sesResourceArn(tenant, 'configuration-set', configurationSetName));
  const identities: string[] = [];
  for (const { domain } of await listSenderDomains(accountId)) {
    if (await tryAssociate(accountId, tenant, sesResourceArn(tenant, 'identity', domain))) identities.push(domain);
  }
  const record: AccountTenant = { name: tenant.name, arn: tenant.arn, status: tenant.status, checked_at: currentTime().toISOString(), identities };
  if (!(await recordAccountTenant(accountId, record))) return undefined;
  log.info('SES tenant made for the account', { accountId, tenant: tenant.name });
  return record;
}

/**
 * A status read this recently is trusted without asking SES again: the step runner runs every minute
 * and a send's dispatch may run every few, and each GetTenant takes a slot of SES's control-plane pace
 * (shared/rate-limits/ses-control.ts). A pause is not missed meanwhile: SES refuses the paused
 * tenant's mail (SendingPausedException), which keeps its place, and the stall watchdog reads it.
 */
export const tenantStatusMaxAgeMs = 5 * 60_000;

/**
 * How long SES's refusal of a new tenant for the quota (LimitExceededException) is believed: no
 * dispatch asks for one meanwhile, and mail of accounts without a tenant goes without one.
 */
export const tenantLimitRetryMs = 60 * 60_000;

/** Until when this container knows the tenant quota reached (epoch ms), so it reads the note only while it does not. */
let limitKnownUntil = 0;

/** Whether SES refused a new tenant for the quota within the last `tenantLimitRetryMs` (noted in the table for every container). */
async function tenantLimitReached(now: number): Promise<boolean> {
  if (limitKnownUntil > now) return true;
  const until = await tenantLimitReachedUntil(now);
  if (until !== undefined) limitKnownUntil = until;
  return until !== undefined;
}

/** Forget what this container knows of the tenant quota (tests). */
export function forgetTenantLimit(): void {
  limitKnownUntil = 0;
}

/** Make the account's tenant unless the quota was found reached lately; undefined then (the mail goes without). */
async function createUnlessAtLimit(accountId: number): Promise<AccountTenant | undefined> {
  const now = currentTime().getTime();
  if (await tenantLimitReached(now)) return undefined;
  try {
    return await createAccountTenant(accountId);
  } catch (error) {
    if (!(error instanceof TenantLimitError)) throw error;
    limitKnownUntil = now + tenantLimitRetryMs;
    await noteTenantLimitReached(limitKnownUntil);
    countMetric('TenantLimitReached');
    log.error('SES refused a new tenant: the tenant quota of the AWS account is reached; mail of accounts without a tenant goes without one', {
      accountId,
      tenant: error.tenant,
      retryAt: new Date(limitKnownUntil).toISOString(),
    });
    return undefined;
  }
}

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
      if (!stored) return await createUnlessAtLimit(accountId);
      const current = await tenants().tenant(stored.name);
      // Deleted outside the service: made again, with its associations.
      if (!current) return await createUnlessAtLimit(accountId);
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
  const associates = (identity: string) => tryAssociate(accountId, tenantOf(tenant), sesResourceArn(tenant, 'identity', identity));
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
