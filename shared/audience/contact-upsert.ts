// Bulk JSON upsert: the call's contacts are stored as an import of their own and upserted by a
// background job (`contact-upsert`) through the importer CSV files go through, chunk by checkpointed
// chunk, so segment membership and automation enrolment follow as for contacts/add and CSV imports.
import { JobNotStarted, startJob, type JobOutcome, type JobRun } from '../background-jobs/job-queue';
import { contactTypeOpen } from '../contact-types/repository';
import { loadImportRows } from '../contacts/import-file';
import { getImportJob, newImportPut, type ImportJob } from '../contacts/import-jobs';
import { CONTACT_UPSERT } from '../contacts/import-keys';
import { ContactTypeUnavailable } from '../contacts/errors';
import { runImport } from './import-runner';
import { contactRows, jsonRowSource } from './json-rows';

/** Most contacts one call upserts: its job's rows stay a few chunks, and its body within what reaches a function. */
export const maxUpsertContacts = 10_000;

const handled = (job: ImportJob) => `${job.processed_rows} of ${job.total_rows} contacts handled`;

/**
 * Store the contacts and start their job; answers the job's id. The stored contacts, the import's
 * item and the job's item are written before the job is queued, in one transaction with a check that
 * the type is open: ContactTypeUnavailable when it does not exist or is being deleted.
 */
export async function startContactUpsert(accountId: number, contactTypeId: number, contacts: readonly unknown[]): Promise<number> {
  const rows = contactRows(contacts);
  try {
    return await startJob(accountId, { kind: 'contact-upsert', target: contactTypeId, message: `Waiting to upsert ${rows.count} contacts.` }, async (jobId) => [
      contactTypeOpen(accountId, contactTypeId),
      await newImportPut(accountId, CONTACT_UPSERT, jobId, contactTypeId, rows),
    ]);
  } catch (error) {
    if (error instanceof JobNotStarted) throw new ContactTypeUnavailable(contactTypeId);
    throw error;
  }
}

/**
 * The `contact-upsert` job: its import from the last checkpoint while there is time. The job's own
 * `processed` follows the import's after each chunk (and catches up on a run after a crash between the two).
 */
export async function runContactUpsertJob(run: JobRun): Promise<JobOutcome> {
  const { accountId } = run;
  const id = run.job.id;
  let job = await getImportJob(accountId, id, CONTACT_UPSERT);
  let shown = run.job.processed;
  const follow = async (current: ImportJob) => {
    if (current.processed_rows === shown) return;
    await run.checkpoint(current.processed_rows - shown, { phase: 'contacts', after: current.processed_rows }, `Upserting contacts: ${handled(current)}.`);
    shown = current.processed_rows;
  };
  if (job.status === 'queued' || job.status === 'running') {
    const rows = await loadImportRows(accountId, id, job.total_rows, CONTACT_UPSERT);
    job = await runImport(accountId, id, rows, jsonRowSource, { kind: CONTACT_UPSERT, keepGoing: () => run.keepGoing(), afterCheckpoint: follow });
  }
  await follow(job);
  if (job.status === 'failed') return { status: 'failed', message: `The contact type was deleted during the upsert; ${handled(job)}.` };
  if (job.status !== 'completed') return { status: 'paused' };
  return { status: 'completed', message: `${handled(job)}: ${job.imported} created, ${job.updated} updated, ${job.failed} refused.` };
}
