// `npm run --silent tenants:status -- --account N --status paused|enabled` stands in for SES on the
// local stack: it pauses (or reinstates) the account's SES tenant, as SES does when a tenant's
// reputation suffers. While it is paused the local SES sink refuses the tenant's mail with
// SendingPausedException, and the account's sends and automation steps are held (`tenant-paused`) until
// it is enabled again. It prints `{"account_id": N, "tenant": ..., "status": ...}`. Local stack only
// (found through `$DATA_DIR/local-endpoints.json`): deployed, SES decides.
import { parseArgs } from 'node:util';
import { ensureAccountTenant } from '../../shared/tenancy/tenant-service';
import { setLocalTenantStatus } from '../../shared/tenants/local-tenants';
import { recheckTenantStatus } from '../../shared/tenants/tenant-status-port';
import type { TenantSendingStatus } from '../../shared/tenants/tenants';
import { chooseTarget, explain, runScript } from './script-target';

const usage = 'usage: npm run --silent tenants:status -- --account N --status paused|enabled';

function parse(): { accountId: number; status: TenantSendingStatus } {
  let parsed;
  try {
    parsed = parseArgs({ options: { account: { type: 'string' }, status: { type: 'string' }, table: { type: 'string' } }, strict: true });
  } catch (error) {
    throw new Error(`${(error as Error).message}; ${usage}`, { cause: error });
  }
  if (parsed.values.table !== undefined) throw new Error('a deployed tenant\'s sending status is SES\'s to set: see docs/operations.md');
  const accountId = Number(parsed.values.account);
  if (!Number.isInteger(accountId) || accountId <= 0) throw new Error(`say which account with --account N; ${usage}`);
  const status = parsed.values.status;
  if (status !== 'paused' && status !== 'enabled') throw new Error(`--status is paused or enabled; ${usage}`);
  return { accountId, status };
}

/** Pause or enable the account's local tenant (made first if it has none); its record on the account follows at once. */
export async function setAccountTenantStatus(accountId: number, status: TenantSendingStatus): Promise<{ account_id: number; tenant: string; status: TenantSendingStatus }> {
  const tenant = await ensureAccountTenant(accountId);
  if (!tenant) throw new Error(`account ${accountId} does not exist`);
  await setLocalTenantStatus(tenant.name, status);
  // Read back as the deliverer does after a refusal, so the account's record says it now.
  return { account_id: accountId, tenant: tenant.name, status: (await recheckTenantStatus(accountId, tenant.name)) ?? status };
}

async function main(): Promise<void> {
  const { accountId, status } = parse();
  const target = chooseTarget(undefined, undefined);
  let outcome;
  try {
    outcome = await setAccountTenantStatus(accountId, status);
  } catch (error) {
    throw new Error(explain(error as Error, target), { cause: error });
  }
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

if (require.main === module) runScript(main);
