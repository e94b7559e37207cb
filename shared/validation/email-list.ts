// The comma-separated address list rule (`email_address` of global unsubscribes and group manual adds).
import { email, Field, type Parsed } from './field';

/** Most addresses one list accepts: one request stays well inside a Lambda's time (a few dozen transactions). */
export const maxListedAddresses = 1000;

const emailAddress = email().required();

/**
 * Split on commas, trim, drop empty entries, validate each address and keep the first spelling of
 * each address compared without regard to case. Every bad entry is named in one message, so a
 * client can fix a pasted list in one round trip.
 */
export function parseEmailList(text: string, attribute = 'email address'): Parsed<string[]> {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { ok: false, message: `The ${attribute} field is required.` };
  const addresses = new Map<string, string>();
  const invalid = new Set<string>();
  for (const entry of entries) {
    const parsed = emailAddress.parse(entry, 'entry');
    if (!parsed.ok) invalid.add(entry);
    else if (!addresses.has(parsed.value.toLowerCase())) addresses.set(parsed.value.toLowerCase(), parsed.value);
  }
  if (invalid.size > 0) {
    return { ok: false, message: `The ${attribute} field must contain valid email addresses: ${[...invalid].join(', ')}.` };
  }
  if (addresses.size > maxListedAddresses) {
    return { ok: false, message: `The ${attribute} field must not contain more than ${maxListedAddresses} addresses.` };
  }
  return { ok: true, value: [...addresses.values()] };
}

/**
 * A text field holding a comma-separated list of addresses, parsed to distinct valid addresses.
 * `attribute` names the field in the list's own messages (the coercion does not see the field name).
 */
export function emailList(attribute = 'email address'): Field<string[]> {
  return new Field<string[]>((value) => {
    if (typeof value !== 'string') return { ok: false, key: 'string' };
    return parseEmailList(value, attribute);
  });
}
