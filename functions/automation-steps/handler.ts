// The scheduler's target for automations: every minute, send the steps that fell due. Deployed, a
// recurring EventBridge schedule fires it; locally each run books the next minute's run on the local
// scheduler (which only keeps one-time jobs), so the chain keeps itself going.
import { remainingOf, timeLeft } from '../../shared/time-left';
import type { Context } from 'aws-lambda';
import { runDueSteps, type RunSummary } from '../../shared/automation-runs/runner';
import { config } from '../../shared/config';
import { eventHandler } from '../../shared/event-entry';
import { describeError, log } from '../../shared/log';
import { scheduleAt } from '../../shared/scheduling/scheduler';
import { currentTime } from '../../shared/time';

/** The local scheduler job that runs the step runner each minute. */
export const tickJobName = 'automation-steps-tick';

const tickIntervalMs = 60_000;

/**
 * Time kept in hand before Lambda's limit. The run checks it before every recipient, so what is left
 * to do when it runs out is small: the SES calls in flight, then the enrolment writes and counts of
 * the mails sent.
 */
const reserveMs = 10_000;

async function nextLocalTick(): Promise<void> {
  if (config().runtime !== 'local') return;
  await scheduleAt({ name: tickJobName, at: new Date(currentTime().getTime() + tickIntervalMs), target: 'automation-steps', payload: { trigger: 'tick' } });
}

async function runSteps(_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<RunSummary> {
  const remaining = remainingOf(context);
  const keepGoing = remaining ? timeLeft(remaining, { reserveMs }) : undefined;
  try {
    const summary = await runDueSteps({ keepGoing });
    if (summary.due > 0 || !summary.complete) log.info('automation steps run', { ...summary });
    return summary;
  } catch (error) {
    log.error('automation steps run failed', describeError(error));
    throw error;
  } finally {
    await nextLocalTick().catch((error: unknown) => log.error('the next local automation tick could not be booked', describeError(error)));
  }
}

export const handler = eventHandler(runSteps);
