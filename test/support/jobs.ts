// Background jobs in the integration tests: the `jobs` queue's real consumer runs them in process
// (registered for every integration test file, see jest.config.js), and a caller that needs a job's
// result waits until the account has no job queued or running.
import { randomUUID } from 'node:crypto';
import { handler } from '../../functions/background-jobs/handler';
import { lambdaContext } from '../../infra/local/lambda-context';
import { isFinished, listJobsPage, type Job } from '../../shared/jobs/repository';
import { registerLocalConsumer } from '../../shared/queue/local-queue';

/** Run the `jobs` queue's messages through its consumer function; returns the unregister function. */
export function runJobsInProcess(timeoutMs = 30_000): () => void {
  return registerLocalConsumer('jobs', (event) => handler(event, lambdaContext('background-jobs', randomUUID(), timeoutMs)));
}

/** The account's jobs, newest first (the first page, up to 1,000). */
export async function jobsOf(accountId: number): Promise<Job[]> {
  return (await listJobsPage(accountId, { limit: 1000 })).items;
}

/** Resolves once every job of the account has finished; throws after `timeoutMs`. */
export async function jobsSettled(accountId: number, timeoutMs = 60_000): Promise<Job[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await jobsOf(accountId);
    if (jobs.every(isFinished)) return jobs;
    if (Date.now() > until) throw new Error(`jobs of account ${accountId} still unfinished: ${JSON.stringify(jobs.filter((job) => !isFinished(job)))}`);
    await new Promise((resume) => setTimeout(resume, 25));
  }
}

/** The account id of test keys made by `newAccount` (they carry it beside the key pair). */
export function accountIdOf(keys: object | undefined): number | undefined {
  const id = (keys as { account_id?: unknown } | undefined)?.account_id;
  return typeof id === 'number' ? id : undefined;
}

/**
 * A family's caller whose every changing call (not GET) returns only once the background jobs it
 * started (a segment rebuild, a contact-type delete, set-live enrolment) have finished, for keys that
 * carry their account id (those of `newAccount`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function settlingJobs<C extends (keys: any, method: string, path: string, ...rest: any[]) => Promise<unknown>>(call: C): C {
  return (async (...args: Parameters<C>) => {
    const result = await (call as (...values: unknown[]) => Promise<unknown>)(...args);
    const [keys, method] = args;
    const accountId = accountIdOf(keys as object | undefined);
    if (method !== 'GET' && accountId !== undefined) await jobsSettled(accountId);
    return result;
  }) as C;
}
