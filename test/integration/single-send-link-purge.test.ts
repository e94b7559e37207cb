// Deleting single sends (one, or in bulk) purges their per-link click items in a background job
// started in the same transaction as the delete: the request answers at once, as the spec says, and
// the job deletes the send's link items page by page from its cursor until the partition is empty.
import { handler as jobsHandler } from '../../functions/jobs/handler';
import { jobRunners } from '../../functions/background-jobs/handler';
import { runJob, type JobMessage } from '../../shared/background-jobs/job-queue';
import { getJobState } from '../../shared/jobs/repository';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { recordClick } from '../../shared/statistics/event-counts';
import { holdSend } from '../../shared/send-gates/hold-service';
import { startDispatch } from '../../shared/single-sends/progress';
import { batchWriteAll, putRequest } from '../../shared/table/batch';
import { counterShards } from '../../shared/table/counter-shards';
import { entityPartition, shardPartition } from '../../shared/table/keys';
import { queryAll } from '../../shared/table/records';
import { handlerCaller, multipart, timestampPattern, urlencoded } from '../support/events';
import { jobsOf, jobsSettled, runJobsInProcess } from '../support/jobs';
import { callSingleSends as call, newSendingAccount, sendFields, utcDateAndTime, type SendingAccount } from '../support/single-sends';

const jobs = handlerCaller(jobsHandler);
const deleted = { status: 200, body: { status: 'success', message: 'Deleted Successfully' } };
const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };

/** A ready send scheduled a day ahead, so no dispatcher fires it. */
async function scheduledSend(account: SendingAccount): Promise<string> {
  const at = new Date(Date.now() + 24 * 3600_000);
  const { date, time } = utcDateAndTime(at);
  const result = await call(account.keys, 'POST', 'single/send/create', {
    body: multipart(sendFields(account, { schedule_type: 1, schedule_date: date, schedule_time: time })),
  });
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

/** A scheduled send moved to running, as the dispatcher does when it starts mailing. */
async function runningSend(account: SendingAccount): Promise<{ utr: string; ref: SendRef }> {
  const utr = await scheduledSend(account);
  if (!(await startDispatch(account.keys.account_id, utr))) throw new Error('the send did not start');
  return { utr, ref: { kind: 'single-send', accountId: account.keys.account_id, utr } };
}

/** Two recipients click two links of the send (three clicks, so both links have an item). */
async function clickTwoLinks(ref: SendRef): Promise<void> {
  for (const [email, target] of [
    ['ada@example.com', 'https://shop.example/spring'],
    ['bob@example.com', 'https://shop.example/spring'],
    ['ada@example.com', 'https://blog.example/post'],
  ] as const) {
    expect(await recordClick(ref, email, target)).toBe(true);
  }
}

/** The send's link items: in the partition they had before they were sharded, and in each shard. */
async function linkItems(ref: SendRef) {
  const legacy = entityPartition(ref.accountId, `link-clicks#${encodeSendRef(ref)}`);
  const partitions = [legacy, ...Array.from({ length: counterShards }, (_, shard) => shardPartition(legacy, shard))];
  return (await Promise.all(partitions.map((partition) => queryAll({ partition })))).flat();
}

describe('single/send/delete', () => {
  it('answers as before and a job purges the send\u2019s link items, shown in jobs', async () => {
    const account = await newSendingAccount();
    const { utr, ref } = await runningSend(account);
    await clickTwoLinks(ref);
    // A link's clicks may lie in several shards: 2 or 3 items.
    const items = await linkItems(ref);
    expect(new Set(items.map((item) => item.url))).toEqual(new Set(['https://shop.example/spring', 'https://blog.example/post']));

    expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } })).toEqual(deleted);
    await jobsSettled(account.keys.account_id);
    expect(await linkItems(ref)).toEqual([]);
    expect(await jobs(account.keys, 'GET', 'jobs')).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          jobs: [
            {
              id: 1,
              kind: 'single-send-link-purge',
              target: utr,
              status: 'completed',
              processed: items.length,
              message: 'The single send\u2019s link clicks are deleted.',
              created_at: expect.stringMatching(timestampPattern),
              updated_at: expect.stringMatching(timestampPattern),
              finished_at: expect.stringMatching(timestampPattern),
            },
          ],
          next_cursor: null,
        },
      },
    });
  });

  it('starts no job for a send never mailed (no link items can exist), nor for an unknown or another account\u2019s send', async () => {
    const account = await newSendingAccount();
    const stranger = await newSendingAccount('Stranger');
    const { utr: theirs } = await runningSend(stranger);
    const draftUtr = await scheduledSend(account);

    expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr: draftUtr } })).toEqual(deleted);
    for (const target of [draftUtr, theirs, '7c9e6679-7425-40de-944b-e07fc1f90ae7', 'nope']) {
      expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr: target } })).toEqual(notFound);
    }
    expect(await jobsOf(account.keys.account_id)).toEqual([]);
    expect(await jobsOf(stranger.keys.account_id)).toEqual([]);
  });
});

describe('single/send/bulk-delete', () => {
  it('answers as before and purges each deleted send\u2019s link items in its own job', async () => {
    const account = await newSendingAccount();
    const first = await runningSend(account);
    const second = await runningSend(account);
    await clickTwoLinks(first.ref);
    await clickTwoLinks(second.ref);
    // Each send's link items, as many as its clicks' shards made.
    const items = new Map(await Promise.all([first, second].map(async ({ utr, ref }) => [utr, (await linkItems(ref)).length] as const)));
    // A held send (its wait is a map the delete is conditioned on, as read) is deleted all the same.
    expect(await holdSend(account.keys.account_id, second.utr, { reason: 'resuming', message: 'Resuming.', retryAt: null })).toBe(true);

    const result = await call(account.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({ strIds: [1, second.utr] }) });
    expect(result).toEqual(deleted);
    const settled = await jobsSettled(account.keys.account_id);
    expect(await linkItems(first.ref)).toEqual([]);
    expect(await linkItems(second.ref)).toEqual([]);
    expect(settled.map(({ kind, target, status, processed }) => ({ kind, target, status, processed })).sort((a, b) => (a.target < b.target ? -1 : 1))).toEqual(
      [first.utr, second.utr].sort().map((target) => ({ kind: 'single-send-link-purge', target, status: 'completed', processed: items.get(target) })),
    );
  });

  it('deletes nothing and starts no job when any entry is unknown', async () => {
    const account = await newSendingAccount();
    const { ref } = await runningSend(account);
    await clickTwoLinks(ref);
    const items = await linkItems(ref);
    expect(await call(account.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({ strIds: [1, 99] }) })).toEqual(notFound);
    expect(await jobsOf(account.keys.account_id)).toEqual([]);
    expect(await linkItems(ref)).toEqual(items);
    // Leave nothing running behind: the send goes, with its items.
    expect(await call(account.keys, 'POST', 'single/send/bulk-delete', { body: urlencoded({ strIds: [1] }) })).toEqual(deleted);
    await jobsSettled(account.keys.account_id);
  });
});

describe('the single-send-link-purge job', () => {
  it('purges many link items page by page, resuming from its cursor after each pause', async () => {
    const held: JobMessage[] = [];
    const release = registerLocalConsumer('jobs', async (event) => {
      for (const record of event.Records) held.push(JSON.parse(record.body) as JobMessage);
    });
    try {
      const account = await newSendingAccount();
      const { utr, ref } = await runningSend(account);
      const partition = entityPartition(ref.accountId, `link-clicks#${encodeSendRef(ref)}`);
      // A design with per-recipient link targets: one item per recipient's link.
      const items = Array.from({ length: 1200 }, (_, i) => ({ pk: partition, sk: `h${String(i).padStart(5, '0')}`, entity: 'link-clicks', url: `https://shop.example/r/${i}`, clicks: 1, unique_clicks: 1 }));
      await batchWriteAll(items.map(putRequest));

      expect(await call(account.keys, 'DELETE', 'single/send/delete', { query: { utr } })).toEqual(deleted);
      const [job] = await jobsOf(account.keys.account_id);
      expect(job).toMatchObject({ kind: 'single-send-link-purge', target: utr, status: 'queued', processed: 0 });
      const jobId = (job as { id: number }).id;

      // Each run is given time for one page only, then pauses; the next run goes on from the cursor.
      const onePage = () => {
        let asked = 0;
        return () => (asked++ === 0 ? 60_000 : 0);
      };
      let runs = 0;
      const seen: number[] = [];
      while (await runJob(account.keys.account_id, jobId, jobRunners, onePage())) {
        runs += 1;
        const state = await getJobState(account.keys.account_id, jobId);
        seen.push(state.processed);
        expect(state).toMatchObject({ status: 'running', cursor: { phase: 'link-clicks' } });
        expect(await linkItems(ref)).toHaveLength(1200 - state.processed);
      }
      expect(runs).toBeGreaterThanOrEqual(2);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen[0]).toBeLessThan(1200);
      expect(await getJobState(account.keys.account_id, jobId)).toMatchObject({ status: 'completed', processed: 1200 });
      expect(await linkItems(ref)).toEqual([]);
    } finally {
      release();
      runJobsInProcess();
    }
  });
});
