// The scheduler's target for single sends: dispatches (or resumes dispatching) one send, stopping in
// time to hand over to a resume job before Lambda's time limit.
import type { Context } from 'aws-lambda';
import { eventHandler } from '../../shared/event-entry';
import { describeError, log } from '../../shared/log';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';

export interface DispatchPayload {
  accountId: number;
  utr: string;
  resume?: boolean;
}

/** Time kept in hand after a page: the longest page seen so far, three times over, and never under 10 s. */
const minimumReserveMs = 10_000;

function isPayload(payload: unknown): payload is DispatchPayload {
  const candidate = payload as DispatchPayload;
  return Number.isSafeInteger(candidate?.accountId) && candidate.accountId > 0 && typeof candidate.utr === 'string' && candidate.utr !== '';
}

async function dispatch(payload: DispatchPayload, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> {
  if (!isPayload(payload)) {
    log.error('send-dispatch got a payload without accountId and utr', { payload });
    return;
  }
  let pageStarted = Date.now();
  let longestPageMs = 0;
  const shouldYield = () => {
    const now = Date.now();
    longestPageMs = Math.max(longestPageMs, now - pageStarted);
    pageStarted = now;
    if (!context) return false;
    return context.getRemainingTimeInMillis() < Math.max(minimumReserveMs, 3 * longestPageMs);
  };
  try {
    const outcome = await dispatchSingleSend(payload.accountId, payload.utr, { shouldYield });
    log.info('single send dispatch', { accountId: payload.accountId, utr: payload.utr, resume: payload.resume === true, outcome });
  } catch (error) {
    // Thrown on so the scheduler retries; the cursor makes the retry continue, not start over.
    log.error('single send dispatch failed', { accountId: payload.accountId, utr: payload.utr, ...describeError(error) });
    throw error;
  }
}

export const handler = eventHandler(dispatch);
