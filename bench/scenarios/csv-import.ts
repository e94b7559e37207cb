// Scenario 5: CSV import rows/s through contacts/upload-csv and contacts/import-status.
import { Api } from '../lib/api';
import { details, log, round, row, settings } from '../lib/report';


export async function scenarioCsvImport(api: Api): Promise<void> {
  const scenario = '5 CSV import';
  const rowsWanted = settings.csvRows;
  await api.ok('POST', 'contacts-type/add', { form: { name: 'CSV bench' } });
  const typeId = await api.contactTypeId('CSV bench');
  const lines = ['email,first_name,last_name,country,city'];
  for (let i = 0; i < rowsWanted; i++) lines.push(`csv-${String(i).padStart(7, '0')}@example.com,Reader ${i},Bench,US,City ${i % 13}`);
  const content = lines.join('\r\n');
  log(`CSV import: ${rowsWanted} rows (${Math.round(content.length / 1024)} KB)`);
  const started = performance.now();
  const answer = await api.ok('POST', 'contacts/upload-csv', { form: { contact_type_id: String(typeId), file: { filename: 'bench.csv', content } } });
  const uploadMs = performance.now() - started;
  const importId = answer.import_id as number;
  let job: Record<string, unknown>;
  const deadline = Date.now() + settings.childTimeoutMs;
  for (;;) {
    const status = await api.ok('GET', 'contacts/import-status', { query: { id: importId } });
    job = status.message.import as Record<string, unknown>;
    if (job.status === 'completed' || job.status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`import ${importId} not finished: ${JSON.stringify(job).slice(0, 300)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const totalMs = performance.now() - started;
  const { errors, ...summary } = job as { errors?: unknown[] } & Record<string, unknown>;
  details.csv_import = { rows: rowsWanted, upload_answer_ms: round(uploadMs), total_ms: round(totalMs), job: summary, error_rows: Array.isArray(errors) ? errors.length : errors };
  if (job.status !== 'completed') throw new Error(`import ${importId} ${String(job.status)}`);
  row(scenario, `${rowsWanted} rows, upload to completed`, round(totalMs / 1000, 2), 's');
  row(scenario, `${rowsWanted} rows import rate`, Math.round(rowsWanted / (totalMs / 1000)), 'rows/s', { op: '>=', limit: 5000 });
}
