// The input a test send and a preview share: the tester's addresses (1 to 10, each once, none that
// bounced or complained) and the optional contact whose values fill the placeholders. Single sends
// and automation steps validate them the same way, with the spec's message wording.
import { ValidationError, type FieldErrors } from '../errors';
import { bouncedAmong } from '../suppressions/bounces';
import { RecordNotFound } from '../table/errors';
import { array, email, format, integer, messages } from '../validation';
import type { TestPersona } from './test-mail';
import { personaOf } from './test-send';

/** Addresses one test send mails at most. */
export const maxTestAddresses = 10;

/** `emails[0]`, `emails[1]`...: the addresses a test mails. */
export const testAddressesField = array(email().required()).required().min(1).max(maxTestAddresses);

/** `contact_id`: the contact whose values fill the placeholders (samples when absent). */
export const testContactField = integer().min(1);

type PersonaCheck = { persona: TestPersona & { email: string }; errors?: undefined } | { persona?: undefined; errors: FieldErrors };

/** The persona of `contact_id`, or the field's exists-rule error when the account has no such contact. */
async function personaCheck(accountId: number, contactId: number | undefined): Promise<PersonaCheck> {
  try {
    return { persona: await personaOf(accountId, contactId) };
  } catch (error) {
    if (!(error instanceof RecordNotFound)) throw error;
    return { errors: { contact_id: [format(messages.exists, { attribute: 'contact id' })] } };
  }
}

/** The addresses once each (first spelling kept), and an error for each one the account's bounce and complaint list holds. */
async function addressesCheck(accountId: number, addresses: readonly string[]): Promise<{ addresses: string[]; errors?: FieldErrors }> {
  const distinct = [...new Map(addresses.map((address) => [address.toLowerCase(), address])).values()];
  const suppressed = await bouncedAmong(accountId, distinct);
  const refused = addresses.flatMap((address, index) =>
    suppressed.has(address.toLowerCase()) ? [`The emails.${index} address is on the suppression list (it bounced or complained).`] : [],
  );
  return { addresses: distinct, ...(refused.length > 0 ? { errors: { emails: refused } } : {}) };
}

/** The persona to render for; a ValidationError when `contact_id` names no contact of the account. */
export async function testPersona(accountId: number, contactId: number | undefined): Promise<TestPersona & { email: string }> {
  const check = await personaCheck(accountId, contactId);
  if (!check.persona) throw new ValidationError(check.errors);
  return check.persona;
}

/** The persona and the addresses to mail; one ValidationError naming every refused field. */
export async function testSendTargets(
  accountId: number,
  contactId: number | undefined,
  addresses: readonly string[],
): Promise<{ persona: TestPersona; addresses: string[] }> {
  const [persona, recipients] = await Promise.all([personaCheck(accountId, contactId), addressesCheck(accountId, addresses)]);
  if (!persona.persona || recipients.errors) throw new ValidationError({ ...recipients.errors, ...persona.errors });
  return { persona: persona.persona, addresses: recipients.addresses };
}
