// Scenario 9: a bulk JSON upsert of 10,000 new contacts in one call (contacts/bulk-upsert, followed
// through jobs/details) beside the CSV import's rate measured in the same run (scenario 5, run first):
// the same contacts' fields, new addresses in a fresh type, so both write the same items per contact.
import { Api } from '../lib/api';
import { details, log, round, row, settings } from '../lib/report';

export async function scenarioBulkUpsert(api: Api): Promise<void> {
  const scenario = '9 bulk upsert';
  const csvRate = (details.csv_import as { rows_per_second?: number } | undefined)?.rows_per_second;
  if (csvRate === undefined) throw new Error('the CSV import (scenario 5) did not run or failed in this run: nothing to compare with');
  const count = settings.upsertContacts;
  await api.ok('POST', 'contacts-type/add', { form: { name: 'Upsert bench' } });
  const typeId = await api.contactTypeId('Upsert bench');
  const countries = (await api.ok('GET', 'get/country-state-city')).message.countries as { id: number; iso2: string }[];
  const us = (countries.find((country) => country.iso2 === 'US') as { id: number }).id;
  // The CSV scenario's row, as JSON: email, first and last name, country, city.
  const contacts = Array.from({ length: count }, (_, i) => ({ email: `upsert-${String(i).padStart(7, '0')}@example.com`, first_name: `Reader ${i}`, last_name: 'Bench', country: us, city: `City ${i % 13}` }));
  const bytes = Buffer.byteLength(JSON.stringify({ contact_type_id: typeId, contacts }));
  log(`bulk upsert: ${count} contacts in one call (${Math.round(bytes / 1024)} KB)`);
  const started = performance.now();
  const answer = await api.ok('POST', 'contacts/bulk-upsert', { json: { contact_type_id: typeId, contacts } });
  const answerMs = performance.now() - started;
  const jobId = answer.message.job_id as number;
  let job: Record<string, unknown>;
  const deadline = Date.now() + settings.childTimeoutMs;
  for (;;) {
    job = (await api.ok('GET', 'jobs/details', { query: { id: jobId } })).message.job as Record<string, unknown>;
    if (job.status !== 'queued' && job.status !== 'running') break;
    if (Date.now() > deadline) throw new Error(`upsert job ${jobId} not finished: ${JSON.stringify(job).slice(0, 300)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const totalMs = performance.now() - started;
  const rate = count / (totalMs / 1000);
  const { errors, ...summary } = job as { errors?: unknown[] } & Record<string, unknown>;
  details.bulk_upsert = {
    contacts: count,
    body_kb: Math.round(bytes / 1024),
    answer_ms: round(answerMs),
    total_ms: round(totalMs),
    contacts_per_second: Math.round(rate),
    csv_import_rows_per_second: csvRate,
    share_of_csv_import_rate: round(rate / csvRate, 3),
    job: summary,
    error_rows: Array.isArray(errors) ? errors.length : errors,
  };
  if (job.status !== 'completed' || job.created !== count) throw new Error(`upsert job ${jobId} ended ${String(job.status)} with ${String(job.created)} created`);
  row(scenario, `${count} contacts, call to completed`, round(totalMs / 1000, 2), 's');
  row(scenario, `${count} contacts upsert rate`, Math.round(rate), 'contacts/s');
  row(scenario, 'CSV import rate, same run (scenario 5)', csvRate, 'rows/s');
  row(scenario, 'upsert rate over CSV import rate', round(rate / csvRate, 3), 'x', { op: '>=', limit: 0.7 });
}
