// What the send path needs of the account's tenant, without any call to SES (the delivery function's
// bundle stays small): the tenant name a mail goes under, from the account's stored tenant record.
import { getAccountTenant, type AccountTenant } from './repository';
import { tenantsOffered } from './tenant-availability';

/**
 * The tenant a mail from `fromEmail` goes under: the account's, when the address, its domain or a
 * parent domain is associated with it (SES refuses a tenant's mail from an identity that is not; a
 * verified domain lets SES send from all of its subdomains). Undefined otherwise: the mail goes
 * without a tenant, as in a region without tenant management.
 */
export function tenantNameForMail(tenant: AccountTenant | undefined, fromEmail: string): string | undefined {
  if (!tenant || !tenantsOffered()) return undefined;
  const address = fromEmail.trim().toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  // An address identity matches whole; a domain identity, the domain or any domain below it.
  const covered = tenant.identities.some((identity) => identity === address || identity === domain || domain.endsWith(`.${identity}`));
  return covered ? tenant.name : undefined;
}

/** The content with the tenant its mails go under, given the account's tenant record as read. */
export function withTenant<Content extends { fromEmail: string; tenantName?: string }>(tenant: AccountTenant | undefined, content: Content): Content {
  const tenantName = tenantNameForMail(tenant, content.fromEmail);
  return tenantName ? { ...content, tenantName } : content;
}

/** The content with the tenant its mails go under, from the account's stored tenant record. */
export async function withAccountTenant<Content extends { fromEmail: string; tenantName?: string }>(accountId: number, content: Content): Promise<Content> {
  return withTenant(await getAccountTenant(accountId), content);
}
