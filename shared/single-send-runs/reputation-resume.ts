// Resuming a single send paused for its reputation (reputation.ts): apart, so the functions that only
// pause (ses-events, send-deliver) do not reach the scheduler.
import { scheduleSendDispatch } from '../send-gates/dispatch-job';
import { log } from '../log';
import { sendMessages } from '../queue/queue';
import { SINGLE_SEND } from '../single-sends/keys';
import { getDispatchState } from '../single-sends/progress';
import { isSingleSendUtr } from '../single-sends/repository';
import { listParkedBatches, removeParkedBatches } from '../single-sends/parked-batches';
import { endReputationPause, getReputationView } from '../single-sends/reputation-pause';
import { rewatch } from '../single-sends/stall-watch';
import { RecordNotFound } from '../table/errors';
import { currentTime } from '../time';

/**
 * The owner resumes a send paused for its reputation: it continues from where it stopped. Its parked
 * batches are queued again as they were (the ledger never mails a recipient twice), its dispatch job is
 * booked when recipients are left to fan out, and it is watched for stalls again. Its rates are judged
 * afresh from here. 'not-paused' when it is not paused (never was, already resumed, or no longer running).
 */
export async function resumeSingleSend(accountId: number, utr: string): Promise<'resumed' | 'not-paused'> {
  const view = isSingleSendUtr(utr) ? await getReputationView(accountId, utr) : undefined;
  if (!view) throw new RecordNotFound(SINGLE_SEND, utr);
  if (!view.running || !view.paused) return 'not-paused';
  if (!(await endReputationPause(accountId, utr, view.counts))) return 'not-paused';
  await rewatch(accountId, utr);
  const parked = await listParkedBatches(accountId, utr);
  if (parked.length > 0) {
    // Queued before they are removed: a crash in between queues a batch twice, never loses one.
    await sendMessages('deliveries', parked.map((batch) => JSON.parse(batch.body) as unknown), { group: String(accountId) });
    await removeParkedBatches(parked.map((batch) => batch.key));
  }
  const state = await getDispatchState(accountId, utr);
  if (state && !state.done) {
    await scheduleSendDispatch(accountId, utr, currentTime(), { resume: true });
  }
  log.info('single send resumed after a reputation pause', { accountId, utr, parkedBatches: parked.length });
  return 'resumed';
}
