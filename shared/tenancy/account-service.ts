// Opening an account: its profile and first key pair, then its SES tenant (shared/tenants/). A tenant
// that cannot be made now is made before the account's first mail, so the account is never refused for it.
import { ensureAccountTenant } from './tenant-service';
import { createAccount, type NewAccount } from '../accounts/repository';

/** Create an account with a fresh key pair and its SES tenant. The secret is returned here and never again. */
export async function openAccount(name: string): Promise<NewAccount> {
  const account = await createAccount(name);
  // SES failing now is logged by the tenant service, never raised: the account exists either way.
  await ensureAccountTenant(account.account_id);
  return account;
}
