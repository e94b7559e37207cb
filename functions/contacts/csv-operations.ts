// Contact CSV operations: the sample file in the import layout, the import, and an import job's status.
import { contactColumns } from '../../shared/contacts/input';
import { runImportJob } from '../../shared/audience/import-runner';
import { enqueueImport } from '../../shared/audience/import-queue';
import { createImportJob, getContactImport } from '../../shared/contacts/import-jobs';
import { contactTypeExists } from '../../shared/contact-types/repository';
import { listCustomFields, type CustomField } from '../../shared/custom-fields/repository';
import { tableRows } from '../../shared/contacts/import-rows';
import { csvLimits, CsvTooLarge, CsvUnreadable, readCsvTable, type CsvLimit } from '../../shared/csv/read-csv';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { jsonResult, ok, raw } from '../../shared/http/reply';
import { file, format, integer, messages, validate } from '../../shared/validation';

/**
 * One CSV record (RFC 4180): a value with a quote, comma or line break is quoted, quotes doubled.
 * The sample holds our own constants and custom field names (letters, digits, `_`), so this is all
 * the writing it needs; csv-stringify did the same for 10.7 KB of the contacts bundle, which has to
 * stay under the 450 KB function limit.
 */
function csvRecord(values: readonly string[]): string {
  return values.map((value) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)).join(',') + '\r\n';
}

/** What the sample row shows for each custom field type. */
const sampleCustomValues: Record<CustomField['field_type'], string> = {
  text: 'Sample text',
  number: '42',
  'datetime-local': '2024-01-31T09:30',
};

const sampleRow: Record<(typeof contactColumns)[number], string> = {
  first_name: 'Jane',
  last_name: 'Doe',
  email: 'jane.doe@example.com',
  alt_email: 'jane@example.org',
  country: 'US',
  state: 'California',
  city: 'San Francisco',
  address_line1: '1 Market Street',
  address_line2: 'Suite 100',
  state_province_region: 'CA',
  postal_code: '94105',
};

export const csvSample = accountOperation(async ({ account }) => {
  const customFields = await listCustomFields(account.id);
  const csv =
    csvRecord([...contactColumns, ...customFields.map((field) => field.field_name)]) +
    csvRecord([...contactColumns.map((column) => sampleRow[column]), ...customFields.map((field) => sampleCustomValues[field.field_type])]);
  return raw({
    statusCode: 200,
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="contacts-sample.csv"' },
    body: csv,
  });
});

const fileMessage = (key: 'mimes', extra: Record<string, string>) => format(messages[key], { attribute: 'file', ...extra });
const noEmailColumn = 'The file field must contain an email column.';
const unreadable = 'The file field must be a valid CSV file.';
/** A file past one of the CSV limits, in Laravel's wording (`max.file` for the size). */
const tooLarge: Record<CsvLimit, string> = {
  fileBytes: `The file field must not be greater than ${csvLimits.fileBytes / 1024} kilobytes.`,
  columns: `The file field must not have more than ${csvLimits.columns} columns.`,
  rows: `The file field must not have more than ${csvLimits.rows} rows.`,
  rowBytes: `The file field must not have a row larger than ${csvLimits.rowBytes / 1024} kilobytes.`,
};

/** contact_type_id and file, checked together; the file must be named *.csv. */
async function readUploadInput(accountId: number, fields: Record<string, unknown>, uploaded: unknown) {
  const errors: FieldErrors = {};
  const typeId = integer().required().min(1).parse(fields.contact_type_id, 'contact_type_id');
  if (!typeId.ok) errors.contact_type_id = [typeId.message];
  else if (!(await contactTypeExists(accountId, typeId.value))) errors.contact_type_id = [format(messages.exists, { attribute: 'contact type id' })];
  const csv = file().required().parse(uploaded, 'file');
  if (!csv.ok) errors.file = [csv.message];
  else if (!/\.csv$/i.test(csv.value.filename.trim())) errors.file = [fileMessage('mimes', { values: 'csv' })];
  else if (csv.value.content.length > csvLimits.fileBytes) errors.file = [tooLarge.fileBytes];
  if (!typeId.ok || !csv.ok || Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { contactTypeId: typeId.value, content: csv.value.content };
}

/**
 * Files of up to this many rows import during the request and answer their counts; larger ones
 * (10,000 rows take longer than API Gateway's 30 s on a cold table) become a job on the queue.
 */
export const maxSynchronousRows = 1000;

const unknownType = () => ValidationError.of('contact_type_id', format(messages.exists, { attribute: 'contact type id' }));

/** A file the CSV reader refuses is a refused file field. */
const csvRefusals = [
  on(CsvUnreadable, () => ValidationError.of('file', unreadable)),
  on(CsvTooLarge, (error) => ValidationError.of('file', tooLarge[error.limit])),
];

export const uploadCsv = accountOperation(async ({ account, request }) => {
  const upload = await readUploadInput(account.id, request.fields, request.files.find((candidate) => candidate.field === 'file'));
  const table = await readCsvTable(upload.content);
  if (!table.columns.includes('email')) throw ValidationError.of('file', noEmailColumn);
  const rows = tableRows(table);

  if (table.rows.length > maxSynchronousRows) {
    const job = await createImportJob(account.id, upload.contactTypeId, table.rows.length, rows);
    await enqueueImport({ accountId: account.id, importId: job.id });
    return raw(jsonResult(200, { status: 'success', message: 'Imported Successfully', import_id: job.id }));
  }
  const job = await createImportJob(account.id, upload.contactTypeId, table.rows.length);
  const finished = await runImportJob(account.id, job.id, rows);
  // The type was deleted between the check above and the writes.
  if (finished.status === 'failed') throw unknownType();
  const result = await getContactImport(account.id, job.id);
  return raw(
    jsonResult(200, {
      status: 'success',
      message: 'Imported Successfully',
      imported: result.imported,
      updated: result.updated,
      failed: result.failed,
      errors: result.errors,
      import_id: job.id,
    }),
  );
}, { errors: csvRefusals });

export const importStatus = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  return ok({ import: await getContactImport(account.id, input.id) });
});
