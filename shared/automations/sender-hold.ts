// Whether a live automation is held: a step whose sender is not verified (never confirmed, its from
// address changed since, or the sender deleted) is never mailed, and its enrolments wait for it. The
// automation's details say so, naming the senders to verify.
import { automationStatus, type Automation } from './repository';
import { reputationPauseReason } from './reputation-pause';
import { listAutomationSteps } from './steps';
import { getSender } from '../senders/repository';
import { RecordNotFound } from '../table/errors';
import { getAccountTenant } from '../tenants/repository';

export interface AutomationHold {
  /** `tenant-paused`: the account's SES tenant is paused (shared/tenants/), every step waits. */
  reason: 'sender-unverified' | 'tenant-paused';
  /** One sentence for people. */
  message: string;
}

/** Whether the sender may be mailed from now; a deleted sender may not. */
async function senderVerified(accountId: number, senderId: number): Promise<boolean> {
  try {
    return (await getSender(accountId, senderId)).is_verified === 1;
  } catch (error) {
    if (error instanceof RecordNotFound) return false;
    throw error;
  }
}

/** The automation's hold, when it is live and a step's sender is not verified; undefined otherwise. */
export async function senderHold(automation: Automation): Promise<AutomationHold | undefined> {
  if (automation.status !== automationStatus.live) return undefined;
  const accountId = automation.user_id;
  const senderIds = [...new Set((await listAutomationSteps(accountId, automation.utr)).map((step) => step.sender_id))];
  const verified = await Promise.all(senderIds.map((id) => senderVerified(accountId, id)));
  const unverified = senderIds.filter((_, index) => !verified[index]);
  if (unverified.length === 0) return undefined;
  const named = unverified.length === 1 ? `sender ${unverified[0]} is` : `senders ${unverified.join(', ')} are`;
  return {
    reason: 'sender-unverified',
    message: `Steps are held: ${named} not verified. Their mails wait and go out once the sender is verified.`,
  };
}

/** The automation's hold while it is live and its account's SES tenant was last seen paused. */
async function tenantHold(automation: Automation): Promise<AutomationHold | undefined> {
  if (automation.status !== automationStatus.live) return undefined;
  const tenant = await getAccountTenant(automation.user_id);
  if (tenant?.status !== 'paused') return undefined;
  return {
    reason: 'tenant-paused',
    message: `Steps are held: the account's SES tenant ${tenant.name} is paused by SES. Their mails wait and go out once SES enables it again.`,
  };
}

/**
 * The automation as its details show it: with `paused_reason` only while it is paused for its
 * reputation (reputation-pause.ts), and `held` only while it is held.
 */
export async function automationDetails(automation: Automation): Promise<Automation & { paused_reason?: string; held?: AutomationHold }> {
  const pausedReason = automation.status === automationStatus.paused ? await reputationPauseReason(automation.user_id, automation.utr) : undefined;
  const held = (await senderHold(automation)) ?? (await tenantHold(automation));
  return { ...automation, ...(pausedReason === undefined ? {} : { paused_reason: pausedReason }), ...(held ? { held } : {}) };
}
