// A single send's one scheduler job: the dispatcher fires at the send's time (or at once) with
// `{accountId, utr}`; re-scheduling replaces the job of the same name, deleting the send cancels it.
import { singleSendJobName, singleSendStatus, type SingleSend } from '../../shared/single-sends/record';
import { cancel, scheduleAt } from '../../shared/scheduling/scheduler';

export async function scheduleDispatch(singleSend: SingleSend, at: Date): Promise<void> {
  await scheduleAt({
    name: singleSendJobName(singleSend.user_id, singleSend.utr),
    at,
    target: 'send-dispatch',
    payload: { accountId: singleSend.user_id, utr: singleSend.utr },
  });
}

/** Cancel the job of a send that has one: ready sends wait for it, running ones may have a resume job under it. */
export async function cancelDispatch(singleSend: SingleSend): Promise<void> {
  if (singleSend.status === singleSendStatus.ready || singleSend.status === singleSendStatus.running) {
    await cancel(singleSendJobName(singleSend.user_id, singleSend.utr));
  }
}
