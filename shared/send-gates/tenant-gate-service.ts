// The tenant's say in whether an account's mail goes: before a single send's dispatch run fans out
// (called from the sender gate, shared/send-gates/sender-gate-service.ts) and before an automation's
// steps are mailed. A paused tenant holds the account's sends with a visible reason and a time to look
// again; nothing of their place is lost, and other accounts' tenants are not involved.
import { currentTime } from '../time';
import { log } from '../log';
import { clearHold, holdSend } from './hold-service';
import type { SendingSingleSend } from '../single-sends/progress';
import { tenantNameForMail } from '../tenants/sending-tenant';
import { associateSenderIdentity, ensureAccountTenant, type AccountTenant } from '../tenancy/tenant-service';

/** The `waiting.reason` of a send held while its account's SES tenant is paused. */
export const tenantPausedReason = 'tenant-paused';

/** How long a send held for a paused tenant waits before its tenant's status is read again. */
export const tenantRecheckMs = 5 * 60_000;

export const tenantPausedMessage = (tenant: string) =>
  `The account's SES tenant ${tenant} is paused by SES; sending continues from where it stopped once SES enables it again.`;

/**
 * Whether the single send may go on as far as its tenant is concerned: the tenant is made when the
 * account has none, the send's sender identity associated with it, and its status read from SES.
 * 'held' when it is paused: the send says why and its dispatch job is booked to look again.
 */
export async function tenantGate(send: SendingSingleSend): Promise<'usable' | 'held'> {
  const accountId = send.user_id;
  const tenant = await ensureAccountTenant(accountId);
  if (tenant?.status === 'paused') {
    await holdSend(accountId, send.utr, {
      reason: tenantPausedReason,
      message: tenantPausedMessage(tenant.name),
      retryAt: new Date(currentTime().getTime() + tenantRecheckMs),
    });
    log.warn('single send held: its account\'s SES tenant is paused', { accountId, utr: send.utr, tenant: tenant.name });
    return 'held';
  }
  if (tenant) await associateSenderIdentity(accountId, tenant, send.from_sender);
  if (send.waiting?.reason === tenantPausedReason) {
    await clearHold(accountId, send.utr, send.waiting.since);
    send.waiting = undefined;
  }
  return 'usable';
}

/** The step's content under the account's tenant: its sender identity associated first. */
export async function contentUnderTenant<Content extends { fromEmail: string; tenantName?: string }>(
  accountId: number,
  tenant: AccountTenant | undefined,
  content: Content,
): Promise<Content> {
  if (!tenant) return content;
  const current = await associateSenderIdentity(accountId, tenant, content.fromEmail);
  const tenantName = tenantNameForMail(current, content.fromEmail);
  return tenantName ? { ...content, tenantName } : content;
}
