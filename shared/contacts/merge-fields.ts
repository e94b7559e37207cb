// The placeholder values a contact fills in a mail (`((first_name))`, custom fields by name, ...).
import type { ContactRecord } from './record';

/** A contact's placeholder values: every contact field, `full_name`, and each custom field by its name. */
export function contactFields(contact: ContactRecord, countryName?: string): Record<string, string> {
  const text = (value: string | null | undefined) => value ?? '';
  const fields: Record<string, string> = {};
  for (const [name, custom] of Object.entries(contact.custom_field ?? {})) fields[name] = text(custom.field_value);
  return Object.assign(fields, {
    first_name: text(contact.first_name),
    last_name: text(contact.last_name),
    email: contact.email,
    alt_email: text(contact.alt_email),
    country: countryName ?? text(contact.country),
    state: text(contact.state),
    city: text(contact.city),
    address_line1: text(contact.address_line1),
    address_line2: text(contact.address_line2),
    state_province_region: text(contact.state_province_region),
    postal_code: text(contact.postal_code),
    full_name: `${text(contact.first_name)} ${text(contact.last_name)}`.trim(),
  });
}
