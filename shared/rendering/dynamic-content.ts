// The dynamic-content names: the `((name))` placeholders a design may use, in the spec's order. The
// template library is checked against this list, and the mail renderer fills exactly these.

export const dynamicContentNames = [
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
  'full_name',
  'father_name',
  'designation',
  'age',
  'company_name',
  'birth_date',
  'join_date',
  'sender_name',
  'sender_address',
  'unsubscribe_preferences',
] as const;

export type DynamicContentName = (typeof dynamicContentNames)[number];

const known = new Set<string>(dynamicContentNames);

export function isDynamicContentName(name: string): name is DynamicContentName {
  return known.has(name);
}

/** `first_name` -> `((first_name))`, the form a design writes a placeholder in. */
export function placeholder(name: DynamicContentName): string {
  return `((${name}))`;
}

/** Matches one `((name))` placeholder; group 1 is the name. */
export const placeholderPattern = /\(\(([A-Za-z0-9_]+)\)\)/g;

/** The placeholder names a text uses, each once, in order of first use. */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(placeholderPattern)].map((match) => match[1] as string))];
}
