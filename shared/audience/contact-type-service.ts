// Deleting a contact type: at once for clients, then a background job removes its contacts and the
// segments built on it, reporting its progress in `jobs`.
import { deleteContactsOfType } from './contact-service';
import { JobNotStarted, startJob, type JobOutcome, type JobRun } from '../background-jobs/job-queue';
import { listSegmentRulesOfContactType } from '../segments/repository';
import { deleteSegment } from './segment-service';
import { RecordNotFound } from '../table/errors';
import { CONTACT_TYPE } from '../contact-types/keys';
import { contactTypeClosing, removeContactType } from '../contact-types/repository';

/**
 * Delete a contact type: it is marked closing (from then on no contact can join it and clients no
 * longer see it) in one transaction with the job that removes its contacts, then its segments (a
 * segment matches the contacts of one type; without the type it could never match anyone again),
 * and the type's own item last. RecordNotFound when it does not exist or is being deleted already.
 */
export async function deleteContactType(accountId: number, id: number): Promise<number> {
  try {
    return await startJob(accountId, { kind: 'contact-type-delete', target: id, message: 'Waiting to delete the contact type\u2019s contacts.' }, [contactTypeClosing(accountId, id)]);
  } catch (error) {
    if (error instanceof JobNotStarted) throw new RecordNotFound(CONTACT_TYPE, id);
    throw error;
  }
}

/** The `contact-type-delete` job: contacts page by page (each page leaves its segments), then the segments, then the type. */
export async function runContactTypeDeleteJob(run: JobRun): Promise<JobOutcome> {
  const { accountId } = run;
  const typeId = Number(run.job.target);
  if (run.job.cursor?.phase !== 'segments') {
    const { done } = await deleteContactsOfType(
      accountId,
      typeId,
      async (removed) => {
        await run.checkpoint(removed, { phase: 'contacts', after: null }, 'Deleting the contact type\u2019s contacts.');
      },
      () => run.keepGoing(),
    );
    if (!done) return { status: 'paused' };
    await run.checkpoint(0, { phase: 'segments', after: null }, 'Deleting the segments built on the contact type.');
  }
  for (const segment of await listSegmentRulesOfContactType(accountId, typeId)) {
    try {
      await deleteSegment(accountId, segment.id);
    } catch (error) {
      // Deleted meanwhile by its own delete: the same end.
      if (!(error instanceof RecordNotFound)) throw error;
    }
  }
  await removeContactType(accountId, typeId);
  return { status: 'completed', message: 'The contact type, its contacts and its segments are deleted.' };
}
