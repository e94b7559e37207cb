// What the tenant port speaks of: one SES tenant per account, its sending status, and the resources
// (identities, the configuration set) associated with it. SES sends a mail under a tenant only when
// every resource the mail names is associated with that tenant.

/** `paused` when SES (or an operator) stopped the tenant's sending; `enabled` otherwise (REINSTATED included). */
export type TenantSendingStatus = 'enabled' | 'paused';

export interface Tenant {
  name: string;
  /** `arn:aws:ses:<region>:<aws account>:tenant/<name>/<id>`: resource ARNs are built beside it. */
  arn: string;
  status: TenantSendingStatus;
}

/**
 * The region offers no tenant management (SES answers the operation as unknown or unsupported): the
 * service sends without tenants there.
 */
export class TenantsUnavailableError extends Error {
  constructor(readonly region: string, options?: { cause?: unknown }) {
    super(`SES tenant management is not available in ${region}`, options);
    this.name = 'TenantsUnavailableError';
  }
}

/** SES refused a new tenant: the AWS account's tenant quota in the region is reached (LimitExceededException). */
export class TenantLimitError extends Error {
  constructor(readonly tenant: string, options?: { cause?: unknown }) {
    super(`SES refused tenant ${tenant}: the account's tenant quota is reached`, options);
    this.name = 'TenantLimitError';
  }
}

/** Reading a tenant's status: all the send path needs (no creating calls in its bundle). */
export interface TenantStatusReader {
  /** The tenant as it stands now; undefined when there is none. */
  tenant(name: string): Promise<Tenant | undefined>;
}

export interface TenantAdapter extends TenantStatusReader {
  /** Create the tenant, or answer the existing one of that name (creation is idempotent by name). */
  createTenant(name: string): Promise<Tenant>;
  /**
   * Associate a resource (an identity or the configuration set) with the tenant. Associating one
   * already associated is not an error; false when the resource does not exist (yet).
   */
  associate(tenant: Tenant, resourceArn: string): Promise<boolean>;
}

/** Tenant names: up to 64 letters, digits, hyphens and underscores. */
const tenantNameLimit = 64;

/**
 * The account's tenant name: the stack's table name (so two stacks in one SES account never share a
 * tenant) and the account id, e.g. `EmailCampaign-DataTable-1A2B-a42`. Stable: derived, never stored first.
 */
export function tenantNameOf(tableName: string, accountId: number): string {
  const suffix = `-a${accountId}`;
  const prefix = tableName.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, tenantNameLimit - suffix.length);
  return `${prefix}${suffix}`;
}

/** An SES resource's ARN in the tenant's region and AWS account: `identity/<name>`, `configuration-set/<name>`. */
export function sesResourceArn(tenant: Pick<Tenant, 'arn'>, kind: 'identity' | 'configuration-set', name: string): string {
  const base = tenant.arn.split(':').slice(0, 5).join(':');
  return `${base}:${kind}/${name}`;
}

/** Where a status answer from SES lands: DISABLED pauses; ENABLED and REINSTATED send. */
export function statusOf(sendingStatus: string | undefined): TenantSendingStatus {
  return sendingStatus === 'DISABLED' ? 'paused' : 'enabled';
}
