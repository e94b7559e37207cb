// contacts/bulk-upsert on `npm start`'s stack over HTTP: one call of 10,000 contacts answers its job
// at once, and the job, run by the local `jobs` queue, completes with created and updated counts
// right and the refused contacts by index, as jobs/details shows them.
import { startTestStack, sleep, type TestStack } from '../support/local-stack';

let stack: TestStack;

async function api(method: string, path: string, options: { json?: unknown; form?: Record<string, string>; query?: Record<string, string | number> } = {}) {
  const url = new URL(`${stack.apiUrl}${path}`);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { ...stack.demoHeaders };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, body: (await response.json()) as { status: string; message: Record<string, unknown> } };
}

/** Upsert and follow the job through jobs/details until it has finished. */
async function upsert(contactTypeId: number, contacts: unknown[]): Promise<Record<string, unknown>> {
  const answer = await api('POST', 'contacts/bulk-upsert', { json: { contact_type_id: contactTypeId, contacts } });
  expect(answer).toEqual({ status: 200, body: { status: 'success', message: { job_id: expect.any(Number) } } });
  for (;;) {
    const details = await api('GET', 'jobs/details', { query: { id: answer.body.message.job_id as number } });
    const job = details.body.message.job as Record<string, unknown>;
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await sleep(200);
  }
}

beforeAll(async () => {
  // The table in memory: the job's 12,000 contact writes are what this file waits on, and DynamoDB
  // Local's on-disk store roughly halves its write rate. Nothing here outlives a restart; the
  // on-disk stack's keeping of jobs and mail across one is send-crash-restart.test.ts's to prove.
  stack = await startTestStack({ inMemory: true });
}, 120_000);

afterAll(async () => {
  await stack.stop();
});

test('10,000 contacts upserted in one call complete with created and updated counts right and row errors by index', async () => {
  // Prepare: a type holding 2,000 contacts.
  expect((await api('POST', 'contacts-type/add', { form: { name: 'Synced' } })).status).toBe(200);
  const types = (await api('GET', 'contacts-type')).body.message.contactTypes as { id: number; name: string }[];
  const typeId = (types.find((type) => type.name === 'Synced') as { id: number }).id;
  const countries = (await api('GET', 'get/country-state-city')).body.message.countries as { id: number; iso2: string }[];
  const us = (countries.find((country) => country.iso2 === 'US') as { id: number }).id;
  const first = await upsert(typeId, Array.from({ length: 2000 }, (_, i) => ({ email: `crm${i}@example.com`, first_name: 'Old', country: us, city: 'Austin' })));
  expect(first).toMatchObject({ status: 'completed', processed: 2000, created: 2000, updated: 0, failed: 0 });

  // Act: the 2,000 again (another case, a new last name), 8,000 new ones, three of them wrong.
  const contacts: Record<string, unknown>[] = Array.from({ length: 10_000 }, (_, i) =>
    i < 2000 ? { email: `CRM${i}@Example.com`, last_name: `Synced ${i}` } : { email: `lead${i}@example.com`, first_name: `Lead ${i}`, country: us },
  );
  contacts[999] = { email: 'crm999@example.com', country: 'Atlantis' };
  contacts[2500] = { email: 'lead2500@example.com' };
  contacts[9999] = { email: 'lead9999@example', country: us };
  const job = await upsert(typeId, contacts);

  // Assess
  expect(job).toMatchObject({
    kind: 'contact-upsert',
    target: String(typeId),
    status: 'completed',
    processed: 10_000,
    created: 7998,
    updated: 1999,
    failed: 3,
    errors: [
      { index: 999, email: 'crm999@example.com', errors: { country: ['The country field must be an integer.'] } },
      { index: 2500, email: 'lead2500@example.com', errors: { country: ['The country field is required.'] } },
      { index: 9999, email: 'lead9999@example', errors: { email: ['The email field must be a valid email address.'] } },
    ],
  });
  const listed = (await api('GET', 'contacts-type')).body.message.contactTypes as { id: number; contacts_count: number }[];
  expect(listed.find((type) => type.id === typeId)?.contacts_count).toBe(9998);
  const jobs = (await api('GET', 'jobs')).body.message.jobs as { id: number; processed: number }[];
  expect(jobs[0]).toMatchObject({ id: job.id, processed: 10_000 });
}, 600_000);
