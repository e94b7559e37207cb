// Scenario 5: CSV import rows/s through contacts/upload-csv and contacts/import-status, beside the
// store's own rate of the transactions an import cannot do without, measured on the same DynamoDB
// Local just before and just after the import: TransactWriteItems of 50 conditional puts, and of the
// import's own shape (50 new rows, each its email claim and its contact: 100 actions).
// A new row is two items by design (the contact, keyed by its id, and the claim that keeps its email
// unique in the type), so beside the raw rows/s over items/s the like-for-like figure divides the
// 50-item rate by the items the import wrote per row.
import { Api } from '../lib/api';
import { details, log, round, row, settings } from '../lib/report';
import { transactionRate, type StoreRate } from '../lib/store-limits';

/** Transactions in flight: a 500-row chunk of an import writes its 10 transactions of 50 rows at once. */
const transactionConcurrency = 10;
const limitTransactions = 80;

async function transactionLimits(): Promise<{ fifty: StoreRate; importShaped: StoreRate }> {
  const fifty = await transactionRate(limitTransactions, 50, transactionConcurrency);
  const importShaped = await transactionRate(limitTransactions / 2, 100, transactionConcurrency);
  return { fifty, importShaped };
}


export async function scenarioCsvImport(api: Api): Promise<void> {
  const scenario = '5 CSV import';
  const rowsWanted = settings.csvRows;
  await api.ok('POST', 'contacts-type/add', { form: { name: 'CSV bench' } });
  const typeId = await api.contactTypeId('CSV bench');
  const lines = ['email,first_name,last_name,country,city'];
  for (let i = 0; i < rowsWanted; i++) lines.push(`csv-${String(i).padStart(7, '0')}@example.com,Reader ${i},Bench,US,City ${i % 13}`);
  const content = lines.join('\r\n');
  log('store limits: transactions of 50 and of 100 conditional puts');
  const before = await transactionLimits();
  log(`CSV import: ${rowsWanted} rows (${Math.round(content.length / 1024)} KB)`);
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
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
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (Date.now() > deadline) throw new Error(`import ${importId} not finished: ${JSON.stringify(job).slice(0, 300)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const totalMs = performance.now() - started;
  const after = await transactionLimits();
  const mean = (pick: (limits: { fifty: StoreRate; importShaped: StoreRate }) => number) => (pick(before) + pick(after)) / 2;
  // Items per second of 50-item transactions; rows per second of the import's shape (two items a row).
  const fiftyItemsPerSecond = mean((limits) => limits.fifty.itemsPerSecond);
  const importShapedRowsPerSecond = mean((limits) => limits.importShaped.itemsPerSecond) / 2;
  const rowsPerSecond = rowsWanted / (totalMs / 1000);
  // Items the import wrote per row: a created contact and its claim, or an updated contact alone.
  const imported = Number(job.imported);
  const updated = Number(job.updated);
  const itemsPerRow = imported + updated > 0 ? (2 * imported + updated) / (imported + updated) : 2;
  const fiftyItemRowsPerSecond = fiftyItemsPerSecond / itemsPerRow;
  const { errors, ...summary } = job as { errors?: unknown[] } & Record<string, unknown>;
  details.csv_import = {
    rows: rowsWanted,
    upload_answer_ms: round(uploadMs),
    total_ms: round(totalMs),
    rows_per_second: Math.round(rowsPerSecond),
    transaction_limit: {
      concurrency: transactionConcurrency,
      items_per_second_50: { before: before.fifty.itemsPerSecond, after: after.fifty.itemsPerSecond },
      rows_per_second_import_shaped: { before: before.importShaped.itemsPerSecond / 2, after: after.importShaped.itemsPerSecond / 2 },
    },
    share_of_50_item_rate: round(rowsPerSecond / fiftyItemsPerSecond, 3),
    items_per_row: round(itemsPerRow, 3),
    share_of_50_item_rate_per_row: round(rowsPerSecond / fiftyItemRowsPerSecond, 3),
    share_of_import_shaped_rate: round(rowsPerSecond / importShapedRowsPerSecond, 3),
    job: summary,
    error_rows: Array.isArray(errors) ? errors.length : errors,
    // This process (the gateway and the import's handler; DynamoDB Local is apart), sampled at each status poll.
    rss_mb: { before: round(rssBefore / 2 ** 20, 1), peak: round(peakRss / 2 ** 20, 1) },
  };
  if (job.status !== 'completed') throw new Error(`import ${importId} ${String(job.status)}`);
  row(scenario, `${rowsWanted} rows, upload to completed`, round(totalMs / 1000, 2), 's');
  row(scenario, `${rowsWanted} rows import rate`, Math.round(rowsPerSecond), 'rows/s', { op: '>=', limit: 5000 });
  row(scenario, 'store limit: 50-item transactions of conditional puts', Math.round(fiftyItemsPerSecond), 'items/s');
  // The figure, rows over items: a new row being two items, it cannot pass 0.5 (shown, no target).
  row(scenario, 'import rows/s over 50-item transaction items/s (raw)', round(rowsPerSecond / fiftyItemsPerSecond, 3), 'x');
  row(scenario, `import rows/s over 50-item transaction items/s / ${round(itemsPerRow, 2)} items a row`, round(rowsPerSecond / fiftyItemRowsPerSecond, 3), 'x', { op: '>=', limit: 0.7 });
  row(scenario, "store limit: the import's transactions (50 rows, 100 actions)", Math.round(importShapedRowsPerSecond), 'rows/s');
  row(scenario, "import rows/s over its own transactions' rows/s", round(rowsPerSecond / importShapedRowsPerSecond, 3), 'x', { op: '>=', limit: 0.7 });
}
