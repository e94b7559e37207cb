// The `jobs` queue: a message names one background job; its consumer runs the job's kind from the
// job's cursor and, when the Lambda's time runs short, puts the job back on the queue to go on there.
import { remainingOf, timeLeft, type RemainingMs } from '../time-left';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';
import { consumeRecords } from '../queue/consumer';
import { sendMessages } from '../queue/queue';
import { maxReceiveCount } from '../queue/queues';
import { log } from '../log';
import { finishJob, getJobState, isFinished, newJobPut, recordProgress, type JobCursor, type JobKind, type JobState, type NewJob } from '../jobs/repository';

export type { JobCursor } from '../jobs/repository';

export interface JobMessage {
  accountId: number;
  jobId: number;
}

/** What a job's kind does with one run: it works page by page from the job's cursor. */
export interface JobRun {
  accountId: number;
  job: JobState;
  /** Whether there is time for another page (asked before each). */
  keepGoing(): boolean;
  /**
   * Save progress after a page: `more` items handled, the cursor to resume from. False when the job
   * was finished meanwhile (by another run): stop then.
   */
  checkpoint(more: number, cursor: JobCursor, message: string): Promise<boolean>;
}

/** How a run ended: the job is done (with its final status and sentence), or it paused to go on in a new message. */
export type JobOutcome = { status: 'completed' | 'superseded' | 'failed'; message: string } | { status: 'paused' };

export type JobRunner = (run: JobRun) => Promise<JobOutcome>;

/** Time kept in hand beyond twice the longest page so far, for the checkpoint and the requeue. */
const reserveMs = 5_000;

/** The `change` refused: what the job was to follow no longer holds (the record is gone or changed). */
export class JobNotStarted extends Error {
  constructor(readonly codes: string[]) {
    super(`The change that starts the job was refused (${codes.join(', ')})`);
    this.name = 'JobNotStarted';
  }
}

/** Put the job's message on the queue; the account is the message group, so one account's jobs never hold up another's. */
export async function enqueueJob(message: JobMessage): Promise<void> {
  await sendMessages('jobs', [message], { group: String(message.accountId) });
}

/**
 * Start a job: the job item is written in one transaction with `change` (the writes that make the job
 * necessary, e.g. deleting a contact type's item), so neither happens without the other; then the
 * job's message is queued. Throws JobNotStarted, with the cancellation codes of `change`'s actions,
 * when a condition of `change` failed. `change` may be made from the job's id (what the job will
 * read, stored under it first).
 */
export async function startJob(accountId: number, job: NewJob, changeOf: TransactionAction[] | ((jobId: number) => Promise<TransactionAction[]>) = []): Promise<number> {
  const { id, put } = await newJobPut(accountId, job);
  const change = typeof changeOf === 'function' ? await changeOf(id) : changeOf;
  try {
    await transactWrite([...change, put]);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes && codes.slice(0, change.length).some((code) => code === 'ConditionalCheckFailed')) throw new JobNotStarted(codes);
    throw error;
  }
  await enqueueJob({ accountId, jobId: id });
  return id;
}

function parseJobMessage(body: string): JobMessage {
  const value = JSON.parse(body) as Partial<JobMessage>;
  if (!Number.isSafeInteger(value.accountId) || !Number.isSafeInteger(value.jobId)) throw new Error(`Not a job message: ${body}`);
  return value as JobMessage;
}

/** Run one job from its cursor until it ends or the time runs short; answers whether it must go on in a new message. */
export async function runJob(accountId: number, jobId: number, runners: Readonly<Record<JobKind, JobRunner>>, remaining?: RemainingMs): Promise<boolean> {
  const job = await getJobState(accountId, jobId);
  if (isFinished(job)) return false;
  const run: JobRun = {
    accountId,
    job,
    keepGoing: timeLeft(remaining, { reserveMs, longestStepTimes: 2 }),
    checkpoint: (more, cursor, message) => recordProgress(accountId, jobId, more, cursor, message),
  };
  const outcome = await runners[job.kind](run);
  if (outcome.status === 'paused') return true;
  await finishJob(accountId, jobId, outcome.status, outcome.message);
  log.info('background job finished', { accountId, jobId, kind: job.kind, status: outcome.status });
  return false;
}

/** Run each job named in the batch; a failed one is redelivered (SQS partial batch response), then dead-lettered. */
export function handleJobEvent(
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  runners: Readonly<Record<JobKind, JobRunner>>,
): Promise<SQSBatchResponse> {
  return consumeRecords('jobs', event, context, 'background job', async (record) => {
    const message = parseJobMessage(record.body);
    try {
      if (await runJob(message.accountId, message.jobId, runners, remainingOf(context))) await enqueueJob(message);
    } catch (error) {
      // The last receive before the dead-letter queue: the job ends visibly failed, not running forever.
      if (Number(record.attributes?.ApproximateReceiveCount) >= maxReceiveCount) {
        await finishJob(message.accountId, message.jobId, 'failed', 'The job failed repeatedly and was stopped; its message is in the dead-letter queue.');
      }
      throw error;
    }
  });
}
