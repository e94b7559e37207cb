// A single send's one scheduler job: the dispatcher (functions/send-dispatch) fired at the send's time,
// or again to go on where it stopped. Every use case books and cancels it here, under the send's one
// job name, so scheduling it again replaces it and deleting the send cancels whatever is pending.
import { cancel, scheduleAt, type ScheduledJob } from '../scheduling/scheduler';
import { singleSendJobName } from '../single-sends/record';

/** What the dispatcher is fired with. */
export interface SendDispatchPayload {
  accountId: number;
  utr: string;
  /** Set when the job goes on with a send already running (a resume), not its first dispatch. */
  resume?: boolean;
}

/** Whether a scheduler event is a dispatch job's payload (anything else is logged and dropped). */
export function isSendDispatchPayload(payload: unknown): payload is SendDispatchPayload {
  const candidate = payload as SendDispatchPayload;
  return Number.isSafeInteger(candidate?.accountId) && candidate.accountId > 0 && typeof candidate.utr === 'string' && candidate.utr !== '';
}

/** The send's dispatch job, but for its time: its one name, the dispatcher, `{accountId, utr}`. */
export function sendDispatchJob(accountId: number, utr: string, options: { resume?: boolean } = {}): Omit<ScheduledJob, 'at'> {
  const payload: SendDispatchPayload = { accountId, utr, ...(options.resume ? { resume: true } : {}) };
  return { name: singleSendJobName(accountId, utr), target: 'send-dispatch', payload: { ...payload } };
}

/** Book the send's dispatch at `at` (the past means at once); `resume` for a send already running. */
export async function scheduleSendDispatch(accountId: number, utr: string, at: Date, options: { resume?: boolean } = {}): Promise<void> {
  await scheduleAt({ ...sendDispatchJob(accountId, utr, options), at });
}

/** Cancel the send's pending job, if any. */
export async function cancelSendDispatch(accountId: number, utr: string): Promise<void> {
  await cancel(singleSendJobName(accountId, utr));
}
