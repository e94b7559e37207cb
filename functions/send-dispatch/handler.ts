// The scheduler's target for single sends: dispatches (or resumes dispatching) one send, stopping in
// time to hand over to a resume job before Lambda's time limit.
import { isSendDispatchPayload, type SendDispatchPayload } from '../../shared/send-gates/dispatch-job';
import { remainingOf, timeLeft } from '../../shared/time-left';
import type { Context } from 'aws-lambda';
import { eventHandler } from '../../shared/event-entry';
import { describeError, log } from '../../shared/log';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';

/** Time kept in hand after a page: 10 s, and the longest page seen so far three times over. */
const reserveMs = 10_000;

async function dispatch(payload: SendDispatchPayload, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> {
  if (!isSendDispatchPayload(payload)) {
    log.error('send-dispatch got a payload without accountId and utr', { payload });
    return;
  }
  const pageFits = timeLeft(remainingOf(context), { reserveMs, longestStepTimes: 3 });
  const shouldYield = () => !pageFits();
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
