// Deleting single sends, with what they leave behind: a send that was ever mailed may own per-link
// click items (one per link target, so up to one per recipient when its links hold per-recipient
// placeholders), too many to delete in a request. Its delete therefore starts, in the same
// transaction, a `single-send-link-purge` job that deletes them page by page.
import { enqueueJob, JobNotStarted, startJob, type JobOutcome, type JobRun } from '../background-jobs/job-queue';
import { getJobState, isFinished, newJobPut, type NewJob } from '../jobs/repository';
import { deleteLinkClicksPage } from '../single-sends/link-clicks';
import { RecordNotFound } from '../table/errors';
import type { TransactionAction } from '../table/transactions';
import { commitSingleSendDeletion, deleteSingleSends, singleSendDeletion } from '../single-sends/deletion';
import { singleSendStatus, type SingleSend } from '../single-sends/repository';

/**
 * Whether the send may own link items: only a send the dispatcher has started (running, then
 * completed or failed) was mailed, and a status never goes back. Test mails count no clicks.
 */
function mayHaveLinkItems(singleSend: SingleSend): boolean {
  return singleSend.status >= singleSendStatus.running;
}

function purgeJob(utr: string): NewJob {
  return { kind: 'single-send-link-purge', target: utr, message: 'Waiting to delete the single send\u2019s link clicks.' };
}

/** Attempts when the send keeps changing (status, wait) between its read and its delete. */
const maxDeleteAttempts = 5;

/**
 * Delete one send and, when it was mailed, start the purge of its link items in the same
 * transaction; the record as it was, so the caller can cancel its scheduler job. RecordNotFound when
 * the account has no such send.
 */
export async function deleteSend(accountId: number, utr: string): Promise<SingleSend> {
  for (let attempt = 1; ; attempt++) {
    const deletion = await singleSendDeletion(accountId, utr);
    if (!mayHaveLinkItems(deletion.singleSend)) {
      if (await commitSingleSendDeletion(deletion)) return deletion.singleSend;
    } else {
      try {
        await startJob(accountId, purgeJob(utr), deletion.actions);
        return deletion.singleSend;
      } catch (error) {
        if (!(error instanceof JobNotStarted)) throw error;
      }
    }
    // Changed or gone since it was read: the next read tells which (RecordNotFound when gone).
    if (attempt >= maxDeleteAttempts) throw new Error(`Single send ${utr} of account ${accountId} kept changing while being deleted`);
  }
}

/** Job messages are sent this many at a time. */
const enqueueConcurrency = 10;

async function enqueueAll(accountId: number, jobIds: readonly number[]): Promise<void> {
  for (let start = 0; start < jobIds.length; start += enqueueConcurrency) {
    await Promise.all(jobIds.slice(start, start + enqueueConcurrency).map((jobId) => enqueueJob({ accountId, jobId })));
  }
}

/** Queue the planned jobs that were written (their send's delete committed) and have not finished. */
async function enqueueWritten(accountId: number, jobIds: readonly number[]): Promise<void> {
  const written: number[] = [];
  for (const jobId of jobIds) {
    const job = await getJobState(accountId, jobId).catch((error: unknown) => {
      if (error instanceof RecordNotFound) return undefined;
      throw error;
    });
    if (job && !isFinished(job)) written.push(jobId);
  }
  await enqueueAll(accountId, written);
}

/** Job ids are drawn this many at a time while planning. */
const planConcurrency = 25;

/**
 * Delete many sends (by integer id or utr) all or nothing, as deleteSingleSends does; each mailed
 * send's delete writes its own purge job in its transaction (one job per send: a send and its job
 * are two of a transaction's 100 actions, so any number of sends packs into transactions, and every
 * job is written exactly when its send is deleted). The jobs are queued once the deletes are done;
 * should the request fail part way, the jobs of the sends already deleted are queued all the same.
 */
export async function deleteSends(accountId: number, references: readonly (number | string)[]): Promise<SingleSend[]> {
  // The job each send's latest plan wrote beside its delete: a send replanned after a conflict gets
  // a new job id, and only the plan it was deleted with was committed.
  const jobOf = new Map<string, number>();
  const planned: number[] = [];
  const plan = async (singleSends: SingleSend[]): Promise<TransactionAction[][]> => {
    const writes: TransactionAction[][] = [];
    for (let start = 0; start < singleSends.length; start += planConcurrency) {
      const group = singleSends.slice(start, start + planConcurrency);
      writes.push(
        ...(await Promise.all(
          group.map(async (singleSend) => {
            if (!mayHaveLinkItems(singleSend)) {
              jobOf.delete(singleSend.utr);
              return [];
            }
            const { id, put } = await newJobPut(accountId, purgeJob(singleSend.utr));
            jobOf.set(singleSend.utr, id);
            planned.push(id);
            return [put];
          }),
        )),
      );
    }
    return writes;
  };
  let deleted: SingleSend[];
  try {
    deleted = await deleteSingleSends(accountId, references, plan);
  } catch (error) {
    await enqueueWritten(accountId, planned);
    throw error;
  }
  await enqueueAll(accountId, deleted.flatMap((singleSend) => jobOf.get(singleSend.utr) ?? []));
  return deleted;
}

/** The `single-send-link-purge` job: the deleted send's link items, a page at a time. */
export async function runLinkPurgeJob(run: JobRun): Promise<JobOutcome> {
  const ref = { kind: 'single-send', accountId: run.accountId, utr: run.job.target } as const;
  for (;;) {
    if (!run.keepGoing()) return { status: 'paused' };
    const deleted = await deleteLinkClicksPage(ref);
    if (deleted === 0) break;
    // The items deleted are the progress: a run resumes by reading the partition from its start.
    await run.checkpoint(deleted, { phase: 'link-clicks', after: null }, 'Deleting the single send\u2019s link clicks.');
  }
  return { status: 'completed', message: 'The single send\u2019s link clicks are deleted.' };
}
