// A single send's one scheduler job: the dispatcher fires at the send's time (or at once) with
// `{accountId, utr}`; re-scheduling replaces the job of the same name, deleting the send cancels it
// (and takes it off its sender's waiting list).
import { singleSendStatus, type SingleSend } from '../../shared/single-sends/record';
import { cancelSendDispatch, scheduleSendDispatch, sendDispatchJob } from '../../shared/send-gates/dispatch-job';
import { startNow } from '../../shared/scheduling/start-now';
import { currentTime } from '../../shared/time';
import { senderWaitReason, unlistSenderWait } from '../../shared/single-sends/sender-waits';

export async function scheduleDispatch(singleSend: SingleSend, at: Date): Promise<void> {
  await scheduleSendDispatch(singleSend.user_id, singleSend.utr, at);
}

/**
 * A new send's first dispatch: at once when it is due now (its name is new, so no earlier job can
 * hold it: shared/scheduling/start-now.ts), else a job at its time. Deployed, a schedule due now
 * would fire 5 to 65 s later (EventBridge Scheduler's one-minute precision).
 */
export async function startDispatch(singleSend: SingleSend, at: Date): Promise<void> {
  // Due by the service's one clock (shared/time.ts), from which the send's time was read too.
  if (at.getTime() > currentTime().getTime()) await scheduleDispatch(singleSend, at);
  else await startNow(sendDispatchJob(singleSend.user_id, singleSend.utr));
}

/** Cancel the job of a send that has one: ready sends wait for it, running ones may have a resume job under it. */
export async function cancelDispatch(singleSend: SingleSend): Promise<void> {
  if (singleSend.status === singleSendStatus.ready || singleSend.status === singleSendStatus.running) {
    await cancelSendDispatch(singleSend.user_id, singleSend.utr);
  }
}

/** Cancel the send's job whatever its status: a send that now waits for its sender must not fire. */
export async function cancelJob(singleSend: SingleSend): Promise<void> {
  await cancelSendDispatch(singleSend.user_id, singleSend.utr);
}

/** Take a deleted send off its sender's waiting list (a stale entry would only be dropped at the confirmation). */
export async function forgetSenderWait(singleSend: SingleSend): Promise<void> {
  if (singleSend.waiting?.reason === senderWaitReason.unverified) await unlistSenderWait(singleSend.user_id, singleSend.sender_id, singleSend.utr);
}
