// Background job operations: the account's jobs, newest first, and one job's progress.
import type { ContactError } from '../../shared/audience/json-rows';
import { getImportErrors, getImportJob } from '../../shared/contacts/import-jobs';
import { CONTACT_UPSERT } from '../../shared/contacts/import-keys';
import { getJobState, listJobsPage, toJob, type Job } from '../../shared/jobs/repository';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { integer, validate } from '../../shared/validation';

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('jobs', await listJobsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

/** A bulk upsert's job with its import's counts: every contact handled so far, refused ones included, and the first refused ones. */
async function withUpsertCounts(accountId: number, job: Job) {
  const [upsert, errors] = await Promise.all([getImportJob(accountId, job.id, CONTACT_UPSERT), getImportErrors<ContactError>(accountId, job.id, CONTACT_UPSERT)]);
  return { ...job, processed: upsert.processed_rows, created: upsert.imported, updated: upsert.updated, failed: upsert.failed, errors };
}

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  const job = toJob(await getJobState(account.id, input.id));
  return ok({ job: job.kind === 'contact-upsert' ? await withUpsertCounts(account.id, job) : job });
});
