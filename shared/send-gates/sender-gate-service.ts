// The sender rule of single sends: nothing is mailed from an address nobody has confirmed. A send may
// be saved naming an unverified sender and waits (status 0); the dispatcher checks the sender at every
// run and holds a send whose sender is unverified or gone; the sender's confirmation releases every
// send waiting for it (an immediate one goes at once, a scheduled one keeps its time).
import { scheduleSendDispatch } from './dispatch-job';
import { currentSender, type Sender } from '../senders/repository';
import { currentTime } from '../time';
import { log } from '../log';
import { holdSend } from './hold-service';
import type { SendingSingleSend } from '../single-sends/progress';
import { singleSendStatus, type SendWaiting } from '../single-sends/record';
import { senderDetails } from '../single-sends/sender';
import {
  listSenderWait,
  recopySenderDetails,
  releaseSenderWait,
  restoreSenderWait,
  senderDeletedMessage,
  senderUnverifiedMessage,
  senderUnverifiedWaiting,
  senderWaitReason,
  sendsListedForSender,
  unlistSenderWait,
} from '../single-sends/sender-waits';
import { failSingleSend, rewatch, unwatch } from '../single-sends/stall-watch';
import { tenantGate } from './tenant-gate-service';

/** Sends released at a time by one confirmation: quick for many, without a burst on the scheduler API. */
const releaseConcurrency = 10;

/** Addresses compare as SES identities do: without regard to case. */
function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The wait of a send about to be saved naming `sender`, with the send listed for the sender first;
 * undefined when the sender is verified (the send is ready).
 */
export async function waitForSender(accountId: number, sender: Sender, utr: string): Promise<SendWaiting | undefined> {
  if (sender.is_verified === 1) return undefined;
  await listSenderWait(accountId, sender.id, utr);
  return senderUnverifiedWaiting(sender.id, currentTime());
}

/**
 * Release one send from its wait for this (verified) sender and book its dispatch: at its time, or
 * now when that has passed or it had none. Its entry on the sender's list goes either way.
 */
async function releaseOne(accountId: number, utr: string, sender: Sender): Promise<boolean> {
  const released = await releaseSenderWait(accountId, utr, sender.id, await senderDetails(sender));
  if (released) {
    const running = released.singleSend.status === singleSendStatus.running;
    // A running send was taken off the stall watch while it waited for a person; it is watched again.
    if (running) await rewatch(accountId, utr);
    const now = currentTime();
    const intended = released.dispatchAt ? new Date(released.dispatchAt) : now;
    try {
      await scheduleSendDispatch(accountId, utr, intended.getTime() > now.getTime() ? intended : now, { resume: running });
    } catch (error) {
      // A released send without a job would never go: it waits again, listed, for the next press.
      await restoreSenderWait(accountId, released);
      throw error;
    }
  }
  await unlistSenderWait(accountId, sender.id, utr);
  return released !== undefined;
}

/**
 * After a waiting send was stored: when its sender was confirmed meanwhile (the confirmation may have
 * read the list a moment before the send was written), release it now.
 */
export async function settleSenderWait(accountId: number, senderId: number, utr: string): Promise<void> {
  const sender = await currentSender(accountId, senderId);
  if (sender?.is_verified === 1) await releaseOne(accountId, utr, sender);
}

/** A sender was confirmed: every send waiting for it moves on. The number of sends released. */
export async function releaseSendsOfSender(accountId: number, senderId: number): Promise<number> {
  const sender = await currentSender(accountId, senderId);
  if (sender?.is_verified !== 1) return 0;
  const utrs = await sendsListedForSender(accountId, senderId);
  let released = 0;
  for (let start = 0; start < utrs.length; start += releaseConcurrency) {
    const outcomes = await Promise.all(utrs.slice(start, start + releaseConcurrency).map((utr) => releaseOne(accountId, utr, sender)));
    released += outcomes.filter(Boolean).length;
  }
  if (released > 0) log.info('single sends released by their sender confirmation', { accountId, senderId, released });
  return released;
}

export type SenderGate =
  /** The sender is verified at the address the send mails from (copied again if it had changed): go on. */
  | 'usable'
  /** Held: the sender is unverified (its confirmation releases the send) or gone (an update does). */
  | 'held'
  /** The send changed while its sender's new details were being copied: this run stops, a newer job runs it. */
  | 'changed'
  /** Its sender was deleted while it was running: it ended at status 4, saying so. */
  | 'stopped';

/**
 * The dispatcher's check, at every run of a ready or running send: the sender exists and is verified,
 * and the send mails from its address. A sender whose address changed and was confirmed again is
 * copied into the send; any other difference holds the send and nothing is mailed.
 */
export async function checkSender(send: SendingSingleSend): Promise<SenderGate> {
  const accountId = send.user_id;
  const { utr } = send;
  const sender = await currentSender(accountId, send.sender_id);
  const running = send.status === singleSendStatus.running;
  if (!sender) {
    // A running send cannot be updated to name another sender: it ends; a ready one waits for an update.
    if (running) {
      await failSingleSend(accountId, utr, { reason: senderWaitReason.deleted, message: senderDeletedMessage(send.sender_id, true) });
      return 'stopped';
    }
    await holdSend(accountId, utr, { reason: senderWaitReason.deleted, message: senderDeletedMessage(send.sender_id, false), retryAt: null });
    return 'held';
  }
  if (sender.is_verified !== 1) {
    await listSenderWait(accountId, sender.id, utr);
    await holdSend(accountId, utr, { reason: senderWaitReason.unverified, message: senderUnverifiedMessage(sender.id), retryAt: null });
    // A held send waits for a person, not for a stalled run: the watchdog must not resume it nor give it up.
    if (running) await unwatch(accountId, utr);
    await settleSenderWait(accountId, sender.id, utr);
    return 'held';
  }
  // A usable sender still waits while the account's SES tenant is paused (shared/tenants/).
  if (sameAddress(sender.from_email, send.from_sender)) return tenantGate(send);
  const details = await senderDetails(sender);
  if (!(await recopySenderDetails(accountId, utr, send.from_sender, details))) return 'changed';
  Object.assign(send, details);
  return tenantGate(send);
}
