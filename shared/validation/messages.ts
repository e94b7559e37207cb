// Laravel's standard validation lines (10.x wording), the spec's `The <field> field is required.` among them.

export const messages = {
  required: 'The :attribute field is required.',
  string: 'The :attribute field must be a string.',
  integer: 'The :attribute field must be an integer.',
  numeric: 'The :attribute field must be a number.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute field must be an array.',
  email: 'The :attribute field must be a valid email address.',
  minString: 'The :attribute field must be at least :min characters.',
  maxString: 'The :attribute field must not be greater than :max characters.',
  minNumber: 'The :attribute field must be at least :min.',
  maxNumber: 'The :attribute field must not be greater than :max.',
  minArray: 'The :attribute field must have at least :min items.',
  maxArray: 'The :attribute field must not have more than :max items.',
  betweenNumber: 'The :attribute field must be between :min and :max.',
  betweenArray: 'The :attribute field must have between :min and :max items.',
  distinct: 'The :attribute field has a duplicate value.',
  in: 'The selected :attribute is invalid.',
  exists: 'The selected :attribute is invalid.',
  unique: 'The :attribute has already been taken.',
  regex: 'The :attribute field format is invalid.',
  // Ours, in Laravel's style: a value bound for a mail header (a sender's name or address).
  controlCharacters: 'The :attribute field must not contain line breaks or control characters.',
  dateFormat: 'The :attribute field must match the format :format.',
  afterNow: 'The :attribute field must be a date after now.',
  file: 'The :attribute field must be a file.',
  mimes: 'The :attribute field must be a file of type: :values.',
} as const;

export type MessageKey = keyof typeof messages;

/** `group_name` -> `group name`, `strIds` -> `str ids`: Laravel snake-cases an attribute, then spaces it. */
export function attributeName(field: string): string {
  return field.replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase().replace(/_/g, ' ');
}

export function format(template: string, replacements: Record<string, string | number>): string {
  return template.replace(/:([a-z]+)/g, (whole, name: string) =>
    name in replacements ? String(replacements[name]) : whole,
  );
}
