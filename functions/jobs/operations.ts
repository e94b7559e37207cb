// Background job operations: the account's jobs, newest first, and one job's progress.
import { getJobState, listJobsPage, toJob } from '../../shared/jobs/repository';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { integer, validate } from '../../shared/validation';

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('jobs', await listJobsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  return ok({ job: toJob(await getJobState(account.id, input.id)) });
});
