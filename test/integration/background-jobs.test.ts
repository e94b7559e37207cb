// Long work as background jobs on DynamoDB Local: a segment save or update, a segment delete, a
// contact-type delete and set-live answer at once; the job does the work from its cursor, shows its
// progress in `jobs`, survives being stopped after any page, and a segment is never mailable half-built.
import { handler as contactTypesHandler } from '../../functions/contact-types/handler';
import { handler as jobsHandler } from '../../functions/jobs/handler';
import { handler as segmentsHandler } from '../../functions/segments/handler';
import { jobRunners } from '../../functions/background-jobs/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact, importContactRows } from '../../shared/audience/contact-service';
import { listEnrolments } from '../../shared/automations/enrolments';
import { runJob, type JobMessage } from '../../shared/background-jobs/job-queue';
import { isFinished } from '../../shared/jobs/repository';
import { registerLocalConsumer, stopLocalQueues } from '../../shared/queue/local-queue';
import { segmentRecipientShardPartitions } from '../../shared/segments/keys';
import { getSegmentRules } from '../../shared/segments/repository';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { handler as automationsHandler } from '../../functions/automations/handler';
import { addStep, automationWorld, createAutomation } from '../support/automations';
import { handlerCaller, multipart, timestampPattern } from '../support/events';
import { jobsOf, runJobsInProcess } from '../support/jobs';
import { callSingleSends, indexed, newSendingAccount, sendFields } from '../support/single-sends';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';
import { updateSegmentRules } from '../../shared/audience/segment-service';
import { segmentContact, segmentForm } from '../support/segments';

const segments = handlerCaller(segmentsHandler);
const contactTypes = handlerCaller(contactTypesHandler);
const jobs = handlerCaller(jobsHandler);

type Account = Awaited<ReturnType<typeof newAccount>>;

/** Take the `jobs` queue's messages without running them, so a test runs each job itself. */
let held: JobMessage[] = [];
let release: () => void = () => {};

beforeEach(() => {
  held = [];
  release = registerLocalConsumer('jobs', async (event) => {
    for (const record of event.Records) held.push(JSON.parse(record.body) as JobMessage);
  });
});

afterEach(() => {
  release();
  runJobsInProcess();
});

afterAll(() => stopLocalQueues());

/**
 * Run the account's held jobs until every one has finished (a run that pauses puts its message back,
 * as the consumer does); answers how many runs that took. Messages reach the holder a moment after
 * they are sent, so an empty holder is waited on while a job is unfinished.
 */
async function runHeld(account: Account, budget: () => number = () => Number.MAX_SAFE_INTEGER): Promise<number> {
  let runs = 0;
  const until = Date.now() + 60_000;
  for (;;) {
    const message = held.shift();
    if (!message) {
      const jobs = await jobsOf(account.account_id);
      if (jobs.every(isFinished)) return runs;
      if (Date.now() > until) throw new Error(`unfinished jobs and no message after ${runs} runs: ${JSON.stringify(jobs)}`);
      await new Promise((resume) => setTimeout(resume, 10));
      continue;
    }
    runs++;
    if (await runJob(message.accountId, message.jobId, jobRunners, budget)) held.push(message);
  }
}

/** A time budget with room for exactly one page per run: every run stops after its first page. */
function onePagePerRun(): () => number {
  let asked = 0;
  return () => (asked++ % 2 === 0 ? Number.MAX_SAFE_INTEGER : 0);
}

/** Contacts `person<i>@example.com` in a type, written as a CSV import writes them (in batches). */
async function addContacts(account: Account, typeId: number, count: number, city: (i: number) => string): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({ line: i + 2, fields: segmentContact(typeId, `person${i}@example.com`, { city: city(i) }), customValues: {} }));
  for (let start = 0; start < rows.length; start += 500) {
    await importContactRows(account.account_id, typeId, rows.slice(start, start + 500), new Set(['first_name', 'last_name', 'email', 'country', 'state', 'city', 'address_line1', 'postal_code']));
  }
}

async function recipientsOf(account: Account, segmentId: number): Promise<string[]> {
  const shards = await Promise.all(segmentRecipientShardPartitions(account.account_id, segmentId).map((partition) => queryAll({ partition })));
  return shards.flat().map((item) => String(item.sk)).sort();
}

async function segmentList(account: Account): Promise<Record<string, unknown>[]> {
  const { body } = await segments(account, 'GET', 'segment/list');
  return (body.message as { segments: Record<string, unknown>[] }).segments;
}

jest.setTimeout(120_000);

describe('background jobs', () => {
  describe('segment/save and segment/update', () => {
    it('answers at once; the segment is building (not mailable) until its job has worked out the recipients', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Customers');
      await addContacts(account, type.id, 3, (i) => (i === 1 ? 'Pune' : 'Kochi'));
      expect(await segments(account, 'POST', 'segment/save', { body: segmentForm(type.id, 'In Kochi', [['city', 'is', 'Kochi']]) })).toEqual({
        status: 200,
        body: { status: 'success', message: 'Added Successfully' },
      });
      expect(await segmentList(account)).toMatchObject([{ id: 1, segment_emails_count: 0, build_status: 'building' }]);
      expect((await getSegmentRules(account.account_id, 1))?.building).toBe(true);
      expect(await jobs(account, 'GET', 'jobs')).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            jobs: [
              {
                id: 1,
                kind: 'segment-rebuild',
                target: '1',
                status: 'queued',
                processed: 0,
                message: 'Waiting to work out the segment\u2019s recipients.',
                created_at: expect.stringMatching(timestampPattern),
                updated_at: expect.stringMatching(timestampPattern),
                finished_at: null,
              },
            ],
            next_cursor: null,
          },
        },
      });

      await runHeld(account);
      expect(await segmentList(account)).toMatchObject([{ id: 1, segment_emails_count: 2, build_status: 'ready' }]);
      expect((await getSegmentRules(account.account_id, 1))?.building).toBe(false);
      expect(await jobs(account, 'GET', 'jobs/details', { query: { id: 1 } })).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            job: expect.objectContaining({ id: 1, kind: 'segment-rebuild', status: 'completed', processed: 3, message: 'The segment is ready.', finished_at: expect.stringMatching(timestampPattern) }),
          },
        },
      });
    });

    it('resumes a rebuild stopped after every page from its cursor and ends with exactly the matching contacts', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Many');
      await addContacts(account, type.id, 1_100, (i) => (i % 3 === 0 ? 'Kochi' : 'Pune'));
      await segments(account, 'POST', 'segment/save', { body: segmentForm(type.id, 'Kochi', [['city', 'is', 'Kochi']]) });
      await runHeld(account);
      expect(await recipientsOf(account, 1)).toHaveLength(367);

      await segments(account, 'POST', 'segment/update', { body: segmentForm(type.id, 'Pune', [['city', 'is', 'Pune']], { segment_id: 1 }) });
      const runs = await runHeld(account, onePagePerRun());
      // Three pages of contacts, then the recipients (the old members) page by page, then the end.
      expect(runs).toBeGreaterThanOrEqual(5);
      const expected = Array.from({ length: 1_100 }, (_, i) => i)
        .filter((i) => i % 3 !== 0)
        .map((i) => `person${i}@example.com`)
        .sort();
      expect(await recipientsOf(account, 1)).toEqual(expected);
      expect(await segmentList(account)).toMatchObject([{ segment_emails_count: 733, build_status: 'ready' }]);
      const [update] = await jobsOf(account.account_id);
      expect(update).toMatchObject({ kind: 'segment-rebuild', status: 'completed', processed: 1_100 });
    });

    it('ends an older rebuild superseded when the segment is saved again, and the newer one builds it', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Customers');
      await addContacts(account, type.id, 4, (i) => (i < 2 ? 'Kochi' : 'Pune'));
      await segments(account, 'POST', 'segment/save', { body: segmentForm(type.id, 'Kochi', [['city', 'is', 'Kochi']]) });
      await segments(account, 'POST', 'segment/update', { body: segmentForm(type.id, 'All', [['city', 'is not empty']], { segment_id: 1 }) });
      await runHeld(account);
      const [newer, older] = await jobsOf(account.account_id);
      expect(older).toMatchObject({ status: 'superseded', message: 'The segment was changed or deleted; the newer save rebuilds it.' });
      expect(newer).toMatchObject({ status: 'completed' });
      expect(await segmentList(account)).toMatchObject([{ segment_emails_count: 4, build_status: 'ready' }]);
    });

    it('answers Record Not Found for an update of an unknown segment, and starts no job', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Customers');
      const result = await segments(account, 'POST', 'segment/update', { body: segmentForm(type.id, 'Kochi', [['city', 'is', 'Kochi']], { segment_id: 9 }) });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(await jobsOf(account.account_id)).toEqual([]);
    });
  });

  describe('segment/delete', () => {
    it('answers at once and purges the recipients in a job', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Customers');
      await addContacts(account, type.id, 600, () => 'Kochi');
      await segments(account, 'POST', 'segment/save', { body: segmentForm(type.id, 'All', [['city', 'is not empty']]) });
      await runHeld(account);
      expect(await recipientsOf(account, 1)).toHaveLength(600);
      expect(await segments(account, 'DELETE', 'segment/delete', { query: { segment_id: 1 } })).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      expect(await segmentList(account)).toEqual([]);
      expect(await runHeld(account, onePagePerRun())).toBeGreaterThanOrEqual(2);
      expect(await recipientsOf(account, 1)).toEqual([]);
      expect((await jobsOf(account.account_id))[0]).toMatchObject({ kind: 'segment-purge', target: '1', status: 'completed', processed: 600 });
    });
  });

  describe('contacts-type/delete', () => {
    it('answers at once; the type is gone for clients while a job deletes its contacts, then its segments and their recipients', async () => {
      const account = await newAccount();
      const type = await addContactType(account.account_id, 'Leaving');
      const other = await addContactType(account.account_id, 'Staying');
      await addContacts(account, type.id, 120, () => 'Kochi');
      await addContact(account.account_id, segmentContact(other.id, 'stay@example.com'), {});
      await segments(account, 'POST', 'segment/save', { body: segmentForm(type.id, 'Kochi', [['city', 'is', 'Kochi']]) });
      await runHeld(account);

      const deleted = await contactTypes(account, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: type.id } });
      expect(deleted).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      const listed = await contactTypes(account, 'GET', 'contacts-type');
      expect((listed.body.message as { contactTypes: { id: number }[] }).contactTypes.map((t) => t.id)).toEqual([other.id]);
      expect((await contactTypes(account, 'GET', 'contacts-type/view', { query: { contact_type_id: type.id } })).status).toBe(404);
      expect(await contactTypes(account, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: type.id } })).toEqual({
        status: 404,
        body: { status: 'failed', errors: 'Record Not Found' },
      });

      await runHeld(account, onePagePerRun());
      const [purge, cascade] = await jobsOf(account.account_id);
      expect(cascade).toMatchObject({ kind: 'contact-type-delete', target: String(type.id), status: 'completed', processed: 120 });
      expect(purge).toMatchObject({ kind: 'segment-purge', status: 'completed' });
      expect(await segmentList(account)).toEqual([]);
      expect(await recipientsOf(account, 1)).toEqual([]);
      const contacts = await queryAll({ partition: `A#${account.account_id}#contact` });
      expect(contacts.map((item) => item.email)).toEqual([]);
    });
  });

  describe('automations/set-live', () => {
    it('answers at once and enrols the target in a job, exactly once per contact even when the job runs twice', async () => {
      const world = await automationWorld();
      const account = world.keys;
      await addContacts(account, world.contactTypeId, 520, () => 'Kochi');
      const utr = await createAutomation(world, { type: 'custom', automation_for: `contacts_${world.contactTypeId}` });
      await addStep(world, utr);
      // The fixture's calls wait for jobs; here the job is held, so set-live goes to the handler through a plain call.
      const live = await handlerCaller(automationsHandler)(account, 'GET', 'automations/set-live', { query: { utr } });
      expect(live).toEqual({ status: 200, body: { status: 'success', message: 'Automation has been set live' } });
      expect(await listEnrolments(account.account_id, utr)).toEqual([]);
      await runHeld(account, onePagePerRun());
      const [job] = await jobsOf(account.account_id);
      // A second delivery of the finished job's message (SQS delivers at least once) changes nothing.
      expect(await runJob(account.account_id, (job as { id: number }).id, jobRunners)).toBe(false);
      expect(await listEnrolments(account.account_id, utr)).toHaveLength(520);
      expect((await jobsOf(account.account_id))[0]).toMatchObject({ kind: 'automation-enrol', target: utr, status: 'completed', processed: 520 });
      // The step runner drains every account's due enrolments: leave none behind for other test files.
      expect((await handlerCaller(automationsHandler)(account, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
      expect(await listEnrolments(account.account_id, utr)).toEqual([]);
    });
  });

  describe('a send to a segment being rebuilt', () => {
    it('waits, saying why, and goes out once the segment is ready', async () => {
      const sending = await newSendingAccount();
      const account = sending.keys;
      await addContacts(account, sending.contactTypeId, 3, () => 'Kochi');
      await updateSegmentRules(account.account_id, sending.segmentId, { contact_type_id: sending.contactTypeId, segment_name: 'All', conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Kochi' }] });
      const created = await callSingleSends(account, 'POST', 'single/send/create', { body: multipart(sendFields(sending, indexed('recipient_id', [`segments_${sending.segmentId}`]))) });
      const { utr } = created.body.message as { utr: string };
      expect(await dispatchSingleSend(account.account_id, utr)).toBe('held');
      const details = await callSingleSends(account, 'GET', 'single-send/details', { query: { utr } });
      expect((details.body.message as { singleSend: Record<string, unknown>[] }).singleSend[0]).toMatchObject({
        status: 2,
        waiting: { reason: 'segment-rebuilding', message: `Segment ${sending.segmentId} is being rebuilt after its rules changed; the send goes on once it is ready.` },
      });
      await runHeld(account);
      expect(await dispatchSingleSend(account.account_id, utr)).toBe('dispatched');
      const after = await callSingleSends(account, 'GET', 'single-send/details', { query: { utr } });
      expect((after.body.message as { singleSend: Record<string, unknown>[] }).singleSend[0]).not.toHaveProperty('waiting');
    });
  });

  describe('jobs and jobs/details', () => {
    it('answers 401 without credentials, a validation error for a bad id, and Record Not Found for another account\u2019s job', async () => {
      const owner = await newAccount();
      const stranger = await newAccount();
      const type = await addContactType(owner.account_id, 'Customers');
      await segments(owner, 'POST', 'segment/save', { body: segmentForm(type.id, 'All', [['city', 'is not empty']]) });
      await runHeld(owner);
      expect((await jobs(undefined, 'GET', 'jobs')).status).toBe(401);
      expect(await jobs(owner, 'GET', 'jobs/details', { query: { id: 'x' } })).toMatchObject({ status: 422, body: { status: 'failed', errors: { id: [expect.any(String)] } } });
      expect(await jobs(stranger, 'GET', 'jobs/details', { query: { id: 1 } })).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(await jobs(stranger, 'GET', 'jobs')).toEqual({ status: 200, body: { status: 'success', message: { jobs: [], next_cursor: null } } });
    });
  });
});
