// Contact input, shared by add, update and each CSV row: the standard fields, the references
// (contact type, country) and the custom values, every failing field reported at once.
import type { ContactFields, CustomValues } from './repository';
import type { CustomField } from '../custom-fields/repository';
import { reservedFieldNames } from '../custom-fields/reserved-fields';
import { ValidationError, type FieldErrors } from '../errors';
import { email, format, integer, messages, record, string, type Schema } from '../validation';

/** Longest text accepted in a standard contact field, and in a text custom field. */
export const maxContactText = 255;
export const maxCustomText = 1000;

/** The standard contact columns in the spec's order (also the CSV layout): the reserved fields. */
export const contactColumns = reservedFieldNames;

const text = () => string().max(maxContactText);

export function contactSchema(countryInput: CountryInput): Schema {
  return {
    contact_type_id: integer().required().min(1),
    first_name: text(),
    last_name: text(),
    email: email().required().max(maxContactText),
    alt_email: email().max(maxContactText),
    country: countryInput === 'id' ? integer().required().min(1) : string().required(),
    state: text(),
    city: text(),
    address_line1: text(),
    address_line2: text(),
    state_province_region: text(),
    postal_code: text(),
    custom_field: record(),
  };
}

/** `id`: the API's country id; `id-code-or-name`: a CSV cell, which may also be an ISO code or a name. */
export type CountryInput = 'id' | 'id-code-or-name';

export interface ContactInputContext {
  customFields: Map<string, CustomField>;
  contactTypeExists: (id: number) => Promise<boolean>;
  /** The country id a value names, or undefined when it names none. */
  resolveCountry: (value: number | string) => Promise<number | undefined>;
  countryInput: CountryInput;
  /**
   * Whether `country` may be left out (absent, not blank): a bulk upsert's contact that matches one
   * keeps its country; a new one still needs it (the upsert checks that once it knows which is which).
   */
  countryMayBeLeftOut?: boolean;
}

export interface ContactInput {
  fields: ContactFields;
  customValues: CustomValues;
}

const datetimeLocal = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;

/** One custom value checked against its field's type: the text stored, or the message. */
function customValue(field: CustomField, raw: unknown): { value: string | null } | { message: string } {
  const attribute = field.field_name;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { value: null };
  if (field.field_type === 'number' && typeof raw === 'number' && Number.isFinite(raw)) return { value: String(raw) };
  if (typeof raw !== 'string') return { message: format(messages.string, { attribute }) };
  const value = raw.trim();
  switch (field.field_type) {
    case 'number':
      return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? { value } : { message: format(messages.numeric, { attribute }) };
    case 'datetime-local':
      return datetimeLocal.test(value) ? { value } : { message: format(messages.dateFormat, { attribute, format: 'Y-m-d\\TH:i' }) };
    case 'text':
      return [...value].length <= maxCustomText ? { value } : { message: format(messages.maxString, { attribute, max: maxCustomText }) };
  }
}

/** Custom values by name; errors are keyed `custom_field.<name>`, as Laravel names nested fields. */
export function readCustomValues(raw: Record<string, unknown> | undefined, customFields: Map<string, CustomField>): { values: CustomValues; errors: FieldErrors } {
  const values: CustomValues = {};
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    const field = customFields.get(name);
    if (!field) {
      errors[`custom_field.${name}`] = [`The custom field ${name} does not exist.`];
      continue;
    }
    const checked = customValue(field, value);
    if ('message' in checked) errors[`custom_field.${name}`] = [checked.message];
    else values[name] = checked.value;
  }
  return { values, errors };
}

/**
 * Validate contact input: the fields' own rules first, then the references of fields that passed,
 * then the custom values. Throws one ValidationError naming every failing field.
 */
export async function readContactInput(raw: Record<string, unknown>, context: ContactInputContext): Promise<ContactInput> {
  let errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  // Field by field rather than `validate`, so the references of fields that passed are still checked.
  for (const [name, field] of Object.entries(contactSchema(context.countryInput))) {
    if (name === 'country' && context.countryMayBeLeftOut && raw.country === undefined) continue;
    const parsed = field.parse(raw[name], name);
    if (parsed.ok) values[name] = parsed.value;
    else errors[name] = [parsed.message];
  }
  const contactTypeId = values.contact_type_id as number | undefined;
  if (contactTypeId !== undefined && !(await context.contactTypeExists(contactTypeId))) {
    errors.contact_type_id = [format(messages.exists, { attribute: 'contact type id' })];
  }
  let countryId: number | undefined;
  if (values.country !== undefined) {
    countryId = await context.resolveCountry(values.country as number | string);
    if (countryId === undefined) errors.country = [format(messages.exists, { attribute: 'country' })];
  }
  const custom = readCustomValues(values.custom_field as Record<string, unknown> | undefined, context.customFields);
  errors = { ...errors, ...custom.errors };
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const textOf = (name: string) => (values[name] as string | undefined) ?? '';
  return {
    fields: {
      contact_type_id: contactTypeId as number,
      first_name: textOf('first_name'),
      last_name: textOf('last_name'),
      email: values.email as string,
      alt_email: (values.alt_email as string | undefined) ?? null,
      country: countryId === undefined ? '' : String(countryId),
      state: textOf('state'),
      city: textOf('city'),
      address_line1: textOf('address_line1'),
      address_line2: textOf('address_line2'),
      state_province_region: textOf('state_province_region'),
      postal_code: textOf('postal_code'),
    },
    customValues: custom.values,
  };
}
