// The reserved contact fields: the built-in columns every contact has, shared by every account.
// They are constants, not table rows, so their ids never change and reading them costs nothing.

/** A field definition as the spec shows it (reserved and custom alike). */
export interface FieldDefinition {
  id: number;
  /** null for reserved fields, which belong to no account. */
  user_id: number | null;
  field_name: string;
  field_type: string;
  is_reserved: 0 | 1;
  created_at: string | null;
  updated_at: string | null;
}

/** The reserved names in the contact's column order; a custom field may not take any of them. */
export const reservedFieldNames = [
  'first_name',
  'last_name',
  'email',
  'alt_email',
  'country',
  'state',
  'city',
  'address_line1',
  'address_line2',
  'state_province_region',
  'postal_code',
] as const;

export type ReservedFieldName = (typeof reservedFieldNames)[number];

/** The definitions, ids 1..N in column order; they never existed as rows, so they have no timestamps. */
export const reservedFields: readonly FieldDefinition[] = Object.freeze(
  reservedFieldNames.map((field_name, index) =>
    Object.freeze({
      id: index + 1,
      user_id: null,
      field_name,
      field_type: 'text',
      is_reserved: 1 as const,
      created_at: null,
      updated_at: null,
    }),
  ),
);

const lowerCaseNames = new Set<string>(reservedFieldNames);

/** Whether a name is reserved, ignoring case (`First_Name` would shadow `first_name` in a design). */
export function isReservedFieldName(name: string): boolean {
  return lowerCaseNames.has(name.trim().toLowerCase());
}
