// The contacts of a bulk JSON upsert as import rows: each contact is kept as JSON beside its email
// (so repeats of an address are linked as a file's rows are) and read as contacts/add reads its input,
// except that a contact may leave fields out: a match keeps them, and a new address needs `country`.
import { emailKey, tableRows, type ImportRows, type LinkedRow } from '../contacts/import-rows';
import { maxMessagesPerRow } from '../contacts/import-jobs';
import { contactColumns, contactSchema, readContactInput } from '../contacts/input';
import { fieldsByName } from '../contacts/items';
import { listCustomFields } from '../custom-fields/repository';
import { findCountry } from '../reference-data/repository';
import { ValidationError, type FieldErrors } from '../errors';
import { format, messages } from '../validation';
import { heldEmails } from './import-lookup';
import { linkedRangeReader, type RowResult } from './csv-rows';
import type { RowSource } from './import-runner';

/** A contact the upsert refused: its index in the call, its email as given, and its messages by field as contacts/add keys them. */
export interface ContactError {
  index: number;
  email: string | null;
  errors: FieldErrors;
}

/** The stored rows' cells: the contact's email (linking its repeats) and the contact as JSON. */
const jsonColumns = ['email', 'contact'];

/** The longest key or message a refused contact's error keeps (an unknown custom field's name is the client's). */
const maxErrorText = 300;

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The call's contacts as the rows of an import, in their order: a row's line is its index. */
export function contactRows(contacts: readonly unknown[]): ImportRows {
  const rows = contacts.map((contact, index) => {
    const email = asObject(contact).email;
    return { line: index, cells: [typeof email === 'string' ? email : '', JSON.stringify(contact) ?? 'null'] };
  });
  return tableRows({ columns: jsonColumns, rows });
}

const cut = (text: string) => (text.length > maxErrorText ? `${text.slice(0, maxErrorText - 1)}\u2026` : text);

/** The field order of contacts/add's errors: its schema's, then the custom fields'. */
const fieldOrder = Object.keys(contactSchema('id'));
const orderOf = (field: string) => (fieldOrder.includes(field) ? fieldOrder.indexOf(field) : fieldOrder.length);

/**
 * A refused contact's error, bounded in size whatever the client sent: at most `maxMessagesPerRow`
 * fields (the last then saying how many more there were, under `contact`) and texts of at most 300 characters.
 */
export function contactError(index: number, email: unknown, errors: FieldErrors): ContactError {
  const entries = Object.entries(errors).sort(([a], [b]) => orderOf(a) - orderOf(b));
  const kept = entries.length <= maxMessagesPerRow ? entries : entries.slice(0, maxMessagesPerRow - 1);
  const bounded: FieldErrors = Object.fromEntries(kept.map(([field, list]) => [cut(field), list.map(cut)]));
  if (kept.length < entries.length) bounded.contact = [`And ${entries.length - kept.length} more errors in this contact.`];
  return { index, email: typeof email === 'string' ? cut(email) : null, errors: bounded };
}

const countryRequired = format(messages.required, { attribute: 'country' });

/** The row source of a bulk upsert's job. */
export async function jsonRowSource(accountId: number, contactTypeId: number, file: ImportRows): Promise<RowSource<ContactError>> {
  const customFields = fieldsByName(await listCustomFields(accountId));
  const context = {
    customFields,
    contactTypeExists: async () => true,
    resolveCountry: async (value: number | string) => (await findCountry(Number(value)))?.id,
    countryInput: 'id' as const,
    countryMayBeLeftOut: true,
  };
  /** The email as given of each row read and not yet written, for the error of a row the writes refuse. */
  const givenEmails = new Map<number, unknown>();
  /** Refused rows that left out `country` and name a valid email: they lack it only if the email is new. */
  const countryUnknown = new Map<number, string>();

  async function readOne(row: LinkedRow): Promise<RowResult<ContactError>> {
    const contact = asObject(JSON.parse(row.cells[1] as string));
    // The call names the type; a contact's own contact_type_id is not read.
    const input = { ...contact, contact_type_id: contactTypeId };
    try {
      const read = await readContactInput(input, context);
      givenEmails.set(row.line, contact.email);
      return { ok: true, row: { line: row.line, ...read, given: new Set(contactColumns.filter((name) => Object.hasOwn(contact, name))) } };
    } catch (error) {
      if (!(error instanceof ValidationError) || typeof error.errors === 'string') throw error;
      const errors = { ...error.errors };
      const email = errors.email === undefined ? emailKey(contact.email as string) : undefined;
      if (!Object.hasOwn(contact, 'country')) {
        if (email === undefined) errors.country = [countryRequired];
        else countryUnknown.set(row.line, email);
      }
      return { ok: false, error: contactError(row.line, contact.email, errors) };
    }
  }

  const readLinked = linkedRangeReader(file, readOne);
  return {
    columns: new Set(contactColumns),
    customFields,
    async readRange(start, end) {
      const { valid, errors } = await readLinked(start, end);
      // A refused contact is told everything contacts/add would tell it: `country` too, when its email is new.
      const unsure = errors.filter((error) => countryUnknown.has(error.index));
      const held = await heldEmails(accountId, contactTypeId, unsure.map((error) => countryUnknown.get(error.index) as string));
      const completed = errors.map((error) => {
        const email = countryUnknown.get(error.index);
        if (email === undefined) return error;
        countryUnknown.delete(error.index);
        return held.has(email) ? error : { ...error, errors: contactError(error.index, error.email, { ...error.errors, country: [countryRequired] }).errors };
      });
      return { valid, errors: completed };
    },
    refusedError(row, refused) {
      const email = givenEmails.get(row.line) ?? row.fields.email;
      givenEmails.delete(row.line);
      return contactError(row.line, email, { [refused.field]: [refused.message] });
    },
    lineOf: (error) => error.index,
  };
}
