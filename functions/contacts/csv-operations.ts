// Contact CSV operations: the sample file in the import layout, and the import itself.
import { stringify } from 'csv-stringify/sync';
import { fieldsByName } from '../../shared/data/contact-items';
import { importContacts, type ImportRow } from '../../shared/data/contact-import';
import { contactTypeExists } from '../../shared/data/contact-types';
import { ContactTypeUnavailable } from '../../shared/data/contacts';
import { listCustomFields, type CustomField } from '../../shared/data/custom-fields';
import { findCountry, findCountryByCode } from '../../shared/data/reference-data';
import { CsvUnreadable, readCsvTable } from '../../shared/csv/read-csv';
import { ValidationError, type FieldErrors } from '../../shared/http/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { jsonResult, raw } from '../../shared/http/reply';
import { file, format, integer, messages } from '../../shared/validation';
import { contactColumns, readContactInput } from './contact-input';

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
  const csv = stringify([
    [...contactColumns, ...customFields.map((field) => field.field_name)],
    [...contactColumns.map((column) => sampleRow[column]), ...customFields.map((field) => sampleCustomValues[field.field_type])],
  ], { record_delimiter: '\r\n' });
  return raw({
    statusCode: 200,
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="contacts-sample.csv"' },
    body: csv,
  });
});

const fileMessage = (key: 'mimes', extra: Record<string, string>) => format(messages[key], { attribute: 'file', ...extra });
const noEmailColumn = 'The file field must contain an email column.';
const unreadable = 'The file field must be a valid CSV file.';

/** contact_type_id and file, checked together; the file must be named *.csv. */
async function readUploadInput(accountId: number, fields: Record<string, unknown>, uploaded: unknown) {
  const errors: FieldErrors = {};
  const typeId = integer().required().min(1).parse(fields.contact_type_id, 'contact_type_id');
  if (!typeId.ok) errors.contact_type_id = [typeId.message];
  else if (!(await contactTypeExists(accountId, typeId.value))) errors.contact_type_id = [format(messages.exists, { attribute: 'contact type id' })];
  const csv = file().required().parse(uploaded, 'file');
  if (!csv.ok) errors.file = [csv.message];
  else if (!/\.csv$/i.test(csv.value.filename.trim())) errors.file = [fileMessage('mimes', { values: 'csv' })];
  if (!typeId.ok || !csv.ok || Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { contactTypeId: typeId.value, content: csv.value.content };
}

/** A country cell: an id, an ISO2 or ISO3 code, or a name; each distinct cell is looked up once. */
function countryResolver(): (value: number | string) => Promise<number | undefined> {
  const seen = new Map<string, Promise<number | undefined>>();
  return (value) => {
    const cell = String(value).trim();
    let found = seen.get(cell.toLowerCase());
    if (!found) {
      found = (/^\d+$/.test(cell) ? findCountry(Number(cell)) : findCountryByCode(cell)).then((country) => country?.id);
      seen.set(cell.toLowerCase(), found);
    }
    return found;
  };
}

export const uploadCsv = accountOperation(async ({ account, request }) => {
  const upload = await readUploadInput(account.id, request.fields, request.files.find((candidate) => candidate.field === 'file'));
  let table;
  try {
    table = readCsvTable(upload.content);
  } catch (error) {
    if (error instanceof CsvUnreadable) throw ValidationError.of('file', unreadable);
    throw error;
  }
  if (!table.columns.includes('email')) throw ValidationError.of('file', noEmailColumn);

  const customFields = fieldsByName(await listCustomFields(account.id));
  const customByColumn = new Map([...customFields.values()].map((field) => [field.field_name.toLowerCase(), field.field_name]));
  const standardColumns = new Set<string>(contactColumns.filter((column) => table.columns.includes(column)));
  const context = { customFields, contactTypeExists: async () => true, resolveCountry: countryResolver(), countryInput: 'id-code-or-name' as const };

  const errors: { row: number; messages: string[] }[] = [];
  // By lower-cased email: a later row of the same email replaces an earlier one.
  const valid = new Map<string, ImportRow>();
  for (const row of table.rows) {
    const input: Record<string, unknown> = { contact_type_id: upload.contactTypeId };
    const custom: Record<string, string> = {};
    for (const [column, cell] of row.cells) {
      if (standardColumns.has(column)) input[column] = cell;
      else if (customByColumn.has(column)) custom[customByColumn.get(column) as string] = cell;
    }
    input.custom_field = custom;
    try {
      const contact = await readContactInput(input, context);
      const email = contact.fields.email.toLowerCase();
      valid.delete(email);
      valid.set(email, { line: row.line, ...contact });
    } catch (error) {
      if (!(error instanceof ValidationError) || typeof error.errors === 'string') throw error;
      errors.push({ row: row.line, messages: Object.values(error.errors).flat() });
    }
  }

  let result;
  try {
    result = await importContacts(account.id, upload.contactTypeId, [...valid.values()], standardColumns);
  } catch (error) {
    if (error instanceof ContactTypeUnavailable) throw ValidationError.of('contact_type_id', format(messages.exists, { attribute: 'contact type id' }));
    throw error;
  }
  for (const refused of result.refused) errors.push({ row: refused.line, messages: [refused.message] });
  errors.sort((a, b) => a.row - b.row);
  return raw(
    jsonResult(200, {
      status: 'success',
      message: 'Imported Successfully',
      imported: result.imported,
      updated: result.updated,
      failed: errors.length,
      errors,
    }),
  );
});
