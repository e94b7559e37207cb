// contacts/bulk-upsert on DynamoDB Local: the call answers a job at once; the `contact-upsert` job
// matches contacts by email within the type (any case), updates matches with the fields given,
// creates new addresses, refuses contacts with contacts/add's own messages by index, brings segments
// and automation enrolment along, and resumes from its checkpoint with the same counts.
import { handler as jobsHandler } from '../../functions/jobs/handler';
import { handler as segmentsHandler } from '../../functions/segments/handler';
import { jobRunners } from '../../functions/background-jobs/handler';
import { runJob, type JobMessage } from '../../shared/background-jobs/job-queue';
import { addContactType } from '../../shared/contact-types/repository';
import { forEachContactOfType } from '../../shared/contacts/repository';
import type { ContactRecord } from '../../shared/contacts/record';
import { listEnrolments } from '../../shared/automations/enrolments';
import { maxBodyBytes } from '../../shared/http/request-size';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addStep, automationWorld, call as callAutomations, createAutomation } from '../support/automations';
import { addField, addType, callContacts, contactCounts, type Account } from '../support/contacts';
import { handlerCaller, json, multipart, timestampPattern, type Body } from '../support/events';
import { jobsOf, jobsSettled, runJobsInProcess } from '../support/jobs';

const jobs = handlerCaller(jobsHandler);
const segments = handlerCaller(segmentsHandler);

let us = 0;

beforeAll(async () => {
  await seedReferenceData();
  us = ((await findCountryByCode('US')) as { id: number }).id;
});

const upsert = (keys: Account, body: Body, headers: Record<string, string> = {}) => callContacts(keys, 'POST', 'contacts/bulk-upsert', { body, headers });

/** Upsert through the API and wait for the job; the job's details. */
async function upserted(keys: Account, contactTypeId: number, contacts: unknown[]): Promise<Record<string, unknown>> {
  const answer = await upsert(keys, json({ contact_type_id: contactTypeId, contacts }));
  expect(answer).toEqual({ status: 200, body: { status: 'success', message: { job_id: expect.any(Number) } } });
  const jobId = (answer.body.message as { job_id: number }).job_id;
  await jobsSettled(keys.account_id, 240_000);
  const details = await jobs(keys, 'GET', 'jobs/details', { query: { id: jobId } });
  expect(details.status).toBe(200);
  return (details.body.message as { job: Record<string, unknown> }).job;
}

/** The type's contacts by lower-cased email. */
async function contactsOf(keys: Account, contactTypeId: number): Promise<Map<string, ContactRecord>> {
  const found = new Map<string, ContactRecord>();
  await forEachContactOfType(keys.account_id, contactTypeId, async (page) => {
    for (const contact of page) found.set(contact.email.toLowerCase(), contact);
  });
  return found;
}

test('2,000 contacts upserted in one call complete with created and updated counts right and row errors by index', async () => {
  // Prepare (the 10,000 of one call run end to end in test/e2e/contacts-bulk-upsert.test.ts): 600 contacts in Berlin on the basic plan, written by a first upsert.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  await addField(keys, 'plan', 'text');
  const existing = Array.from({ length: 600 }, (_, i) => ({ email: `person${i}@example.com`, first_name: `First ${i}`, country: us, city: 'Berlin', custom_field: { plan: 'basic' } }));
  expect(await upserted(keys, typeId, existing)).toMatchObject({ status: 'completed', processed: 600, created: 600, updated: 0, failed: 0, errors: [] });

  // The call: the 600 again in upper case with a new first name only, and 1,400 new addresses in
  // Paris; five contacts are wrong, matched ones and new ones.
  const contacts: Record<string, unknown>[] = Array.from({ length: 2000 }, (_, i) =>
    i < 600 ? { email: `PERSON${i}@EXAMPLE.COM`, first_name: `Renamed ${i}` } : { email: `new${i}@example.com`, country: us, city: 'Paris' },
  );
  contacts[17] = { email: 'PERSON17@EXAMPLE.COM', alt_email: 'nope' };
  contacts[400] = { email: 'person400@example.com', first_name: 'x'.repeat(256) };
  contacts[864] = { email: 'new864@example.com', city: 'Paris' };
  contacts[1000] = { email: 'not-an-email', country: us };
  contacts[1200] = { email: 'new1200@example.com', custom_field: { tier: 'gold' } };

  // Act
  const job = await upserted(keys, typeId, contacts);

  // Assess: every contact handled, the counts exact, the refused ones by index with their email as given.
  expect(job).toEqual({
    id: expect.any(Number),
    kind: 'contact-upsert',
    target: String(typeId),
    status: 'completed',
    processed: 2000,
    created: 1397,
    updated: 598,
    failed: 5,
    errors: [
      { index: 17, email: 'PERSON17@EXAMPLE.COM', errors: { alt_email: ['The alt email field must be a valid email address.'] } },
      { index: 400, email: 'person400@example.com', errors: { first_name: ['The first name field must not be greater than 255 characters.'] } },
      { index: 864, email: 'new864@example.com', errors: { country: ['The country field is required.'] } },
      { index: 1000, email: 'not-an-email', errors: { email: ['The email field must be a valid email address.'] } },
      { index: 1200, email: 'new1200@example.com', errors: { country: ['The country field is required.'], 'custom_field.tier': ['The custom field tier does not exist.'] } },
    ],
    message: '2000 of 2000 contacts handled: 1397 created, 598 updated, 5 refused.',
    created_at: expect.stringMatching(timestampPattern),
    updated_at: expect.stringMatching(timestampPattern),
    finished_at: expect.stringMatching(timestampPattern),
  });
  // Matched contacts took the email's spelling and the new first name and kept what was left out; new ones are as given.
  const stored = await contactsOf(keys, typeId);
  expect(stored.size).toBe(1997);
  expect(await contactCounts(keys)).toEqual({ [typeId]: 1997 });
  expect(stored.get('person5@example.com')).toMatchObject({ email: 'PERSON5@example.com', first_name: 'Renamed 5', city: 'Berlin', country: String(us), custom_field: { plan: { field_name: 'plan', field_value: 'basic' } } });
  expect(stored.get('person17@example.com')).toMatchObject({ first_name: 'First 17' });
  expect(stored.get('new600@example.com')).toMatchObject({ first_name: '', city: 'Paris', country: String(us), custom_field: null });
  expect(stored.has('new864@example.com')).toBe(false);
  // The messages are contacts/add's for the same input.
  for (const index of [1000, 1200]) {
    const added = await callContacts(keys, 'POST', 'contacts/add', { body: json({ contact_type_id: typeId, ...contacts[index] }) });
    expect(added).toEqual({ status: 422, body: { status: 'failed', errors: (job.errors as { index: number; errors: unknown }[]).find((error) => error.index === index)?.errors } });
  }
}, 300_000);

test('the call is refused as a whole when its type or contacts are not right, and within the body limit', async () => {
  const keys = await newAccount();
  const other = await newAccount();
  const typeId = await addType(keys, 'Customers');
  await addType(other, 'Theirs');
  const othersType = await addType(other, 'Theirs too');
  expect(othersType).not.toBe(typeId);
  const refused = (errors: Record<string, string[]>) => ({ status: 422, body: { status: 'failed', errors } });

  expect(await upsert(keys, json({}))).toEqual(refused({ contact_type_id: ['The contact type id field is required.'], contacts: ['The contacts field is required.'] }));
  expect(await upsert(keys, json({ contact_type_id: typeId, contacts: [] }))).toEqual(refused({ contacts: ['The contacts field must have at least 1 items.'] }));
  expect(await upsert(keys, json({ contact_type_id: typeId, contacts: [{ email: 'a@example.com' }, 'b@example.com'] }))).toEqual(refused({ contacts: ['The contacts.1 field must be an array.'] }));
  const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ email: `p${i}@example.com` }));
  expect(await upsert(keys, json({ contact_type_id: typeId, contacts: tooMany }))).toEqual(refused({ contacts: ['The contacts field must not have more than 10000 items.'] }));
  // Another account's type is no type of this one.
  expect(await upsert(keys, json({ contact_type_id: othersType, contacts: [{ email: 'a@example.com', country: us }] }))).toEqual(refused({ contact_type_id: ['The selected contact type id is invalid.'] }));
  // A body past what reaches a function is refused before it is read.
  const padding = 'x'.repeat(maxBodyBytes);
  expect(await upsert(keys, json({ contact_type_id: typeId, contacts: [{ email: 'a@example.com', country: us, city: padding }] }))).toEqual({ status: 413, body: { status: 'failed', errors: 'Request body too large.' } });
  // Nothing was started.
  expect(await jobsOf(keys.account_id)).toEqual([]);
  expect(await jobsOf(other.account_id)).toEqual([]);
});

test('a call repeated with its Idempotency-Key answers the same job and upserts once', async () => {
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const body = json({ contact_type_id: typeId, contacts: [{ email: 'a@example.com', country: us }] });
  const first = await upsert(keys, body, { 'Idempotency-Key': 'sync-1' });
  const again = await upsert(keys, body, { 'Idempotency-Key': 'sync-1' });
  expect(again).toEqual(first);
  await jobsSettled(keys.account_id);
  expect((await jobsOf(keys.account_id)).map((job) => job.kind)).toEqual(['contact-upsert']);
  expect(await contactCounts(keys)).toEqual({ [typeId]: 1 });
});

test('upserted contacts join and leave segments, and new ones enrol in the type\'s live automations, as contacts/add does', async () => {
  // Prepare: a segment of Berliners and a live automation on the type; one contact in Hamburg.
  const world = await automationWorld();
  const keys = world.keys;
  const saved = await segments(keys, 'POST', 'segment/save', {
    body: multipart({ contact_type_id: world.contactTypeId, segment_name: 'Berliners', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'berlin' }),
  });
  expect(saved.status).toBe(200);
  await jobsSettled(world.accountId);
  const utr = await createAutomation(world);
  await addStep(world, utr, { subject: 'Welcome', waiting_type: 'instantly', waiting_period: 0 });
  expect((await callAutomations(keys, 'GET', 'automations/set-live', { query: { utr } })).status).toBe(200);
  const added = await callContacts(keys, 'POST', 'contacts/add', { body: multipart({ contact_type_id: world.contactTypeId, email: 'anna@example.com', country: us, city: 'Hamburg' }) });
  expect(added.status).toBe(200);
  const segmentId = ((await segments(keys, 'GET', 'segment/list')).body.message as { segments: { id: number; segment_name: string }[] }).segments.find((segment) => segment.segment_name === 'Berliners')?.id;
  const members = async () =>
    ((await segments(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId as number } })).body.message as { contactEmails: { email: string }[] }).contactEmails.map((member) => member.email).sort();

  // Act: Anna moves to Berlin, Ben is new in Berlin, Cleo new in Rome.
  const job = await upserted(keys, world.contactTypeId, [
    { email: 'ANNA@example.com', city: 'Berlin' },
    { email: 'ben@example.com', country: us, city: 'Berlin' },
    { email: 'cleo@example.com', country: us, city: 'Rome' },
  ]);

  // Assess
  expect(job).toMatchObject({ status: 'completed', processed: 3, created: 2, updated: 1, failed: 0 });
  expect(await members()).toEqual(['ANNA@example.com', 'ben@example.com']);
  expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.email).sort()).toEqual(['anna@example.com', 'ben@example.com', 'cleo@example.com']);

  // And out again: Ben leaves Berlin.
  await upserted(keys, world.contactTypeId, [{ email: 'ben@example.com', city: 'Bonn' }]);
  expect(await members()).toEqual(['ANNA@example.com']);
});

describe('stopped after every chunk', () => {
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

  test('the job resumes from its checkpoint, and its counts and progress come out the same', async () => {
    const keys = await newAccount();
    const typeId = await addContactType(keys.account_id, 'Customers').then((type) => type.id);
    const contacts: Record<string, unknown>[] = Array.from({ length: 1200 }, (_, i) => ({ email: `p${i}@example.com`, country: us }));
    contacts[700] = { email: 'bad' };
    // An email repeated later in the call: its last contact is the one upserted, as a file's last row is.
    contacts.push({ email: 'P0@example.com', country: us, city: 'Again' });
    const answer = await upsert(keys, json({ contact_type_id: typeId, contacts }));
    const jobId = (answer.body.message as { job_id: number }).job_id;

    // Each run has time for one chunk: asked again, it is out of time.
    let runs = 0;
    for (const until = Date.now() + 120_000; ; ) {
      const message = held.shift();
      if (!message) {
        if ((await jobsOf(keys.account_id)).every((job) => job.status === 'completed')) break;
        if (Date.now() > until) throw new Error('the job did not finish');
        await new Promise((resume) => setTimeout(resume, 10));
        continue;
      }
      runs++;
      let asked = 0;
      if (await runJob(message.accountId, message.jobId, jobRunners, () => (asked++ === 0 ? Number.MAX_SAFE_INTEGER : 0))) held.push(message);
    }

    expect(runs).toBe(3);
    const details = await jobs(keys, 'GET', 'jobs/details', { query: { id: jobId } });
    expect((details.body.message as { job: unknown }).job).toMatchObject({
      status: 'completed',
      processed: 1201,
      created: 1199,
      updated: 0,
      failed: 1,
      errors: [{ index: 700, email: 'bad', errors: { email: ['The email field must be a valid email address.'] } }],
    });
    expect((await contactsOf(keys as Account, typeId)).get('p0@example.com')).toMatchObject({ email: 'P0@example.com', city: 'Again' });
    expect((await jobsOf(keys.account_id))[0]).toMatchObject({ id: jobId, processed: 1201 });
  }, 120_000);
});
