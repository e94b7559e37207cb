// What `single-send/stats` answers: the send's counters, how far its delivery got, and its most
// clicked links; and the "x of N" pair `single-send/details` shows while a send runs.
import { RecordNotFound } from '../table/errors';
import { SINGLE_SEND } from '../single-sends/keys';
import { getDispatchState } from '../single-sends/progress';
import { type DispatchState } from '../single-sends/dispatch-state';
import { getSingleSendCounters } from '../single-sends/counters';
import { isSingleSendUtr } from '../single-sends/repository';
import { mostClickedLinks, type LinkClicks } from '../single-sends/link-clicks';

/** How far a send got: recipients resolved so far (final once its dispatch is done) and recipients whose outcome is settled. */
export interface SendProgress {
  audience: number;
  processed: number;
}

export interface SingleSendStats extends SendProgress {
  delivered: number;
  /** People's opens and clicks; a machine's open or a bot's click counts only in `machine_opens` or `bot_clicks`. */
  opens: number;
  unique_opens: number;
  machine_opens: number;
  clicks: number;
  unique_clicks: number;
  bot_clicks: number;
  bounces: number;
  complaints: number;
  unsubscribes: number;
  uncertain: number;
}

/** 0 of 0 before the send starts. */
export function sendProgress(dispatch: DispatchState | undefined): SendProgress {
  if (!dispatch) return { audience: 0, processed: 0 };
  return { audience: dispatch.fannedRecipients, processed: dispatch.sent + dispatch.skipped + dispatch.failed + dispatch.uncertain };
}

/** The send's statistics and links; RecordNotFound when the account has no such send. */
export async function singleSendStats(accountId: number, utr: string): Promise<{ stats: SingleSendStats; links: LinkClicks[] }> {
  // Any other text names no send (and could not be part of a send reference).
  if (!isSingleSendUtr(utr)) throw new RecordNotFound(SINGLE_SEND, utr);
  const ref = { kind: 'single-send', accountId, utr } as const;
  const [counters, dispatch, links] = await Promise.all([getSingleSendCounters(accountId, utr), getDispatchState(accountId, utr), mostClickedLinks(ref)]);
  if (!counters) throw new RecordNotFound(SINGLE_SEND, utr);
  return {
    stats: {
      ...sendProgress(dispatch),
      delivered: counters.delivered,
      opens: counters.total_opens,
      unique_opens: counters.unique_opens,
      machine_opens: counters.machine_opens,
      clicks: counters.clicks,
      unique_clicks: counters.unique_clicks,
      bot_clicks: counters.bot_clicks,
      bounces: counters.bounces,
      complaints: counters.complaints,
      unsubscribes: counters.unsubscribes,
      uncertain: dispatch?.uncertain ?? 0,
    },
    links,
  };
}
