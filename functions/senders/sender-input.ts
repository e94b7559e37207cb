// The sender input of save and update: field rules, then the country/state/city references, with
// every failing field reported together in field order, as Laravel does.
import { cityBelongsTo, findCountry, stateBelongsTo } from '../../shared/reference-data/repository';
import type { SenderInput } from '../../shared/senders/repository';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { onServiceDomain } from '../../shared/identities/service-domain';
import { email, format, integer, messages, string, type Infer, type Schema } from '../../shared/validation';

// The spec limits the two address lines to 255; the other texts get the same bound (our choice) so a
// record stays far below DynamoDB's item size. The name and the two addresses go into the From and
// Reply-To headers of every send, where a CR or LF would make SES refuse each message, so they hold
// no control characters (an address's own rule already refuses whitespace; the others are checked here).
// The nickname and the address lines never reach a header.
export const senderFields = {
  from_name: string().required().max(255).singleLine(),
  from_email: email().required().singleLine(),
  reply_to_email: email().required().singleLine(),
  country_id: integer().required(),
  state_id: integer(),
  city_id: integer(),
  zip_code: string().max(255),
  company_address: string().required().max(255),
  company_address2: string().max(255),
  nickname: string().required().max(255),
} satisfies Schema;

export const senderId = integer().required().min(1);

/** SES would send from such an address as the service itself, under its DKIM signature. */
export const serviceAddressMessage = "The from email field must not be an address on this service's own sender domain.";

const invalid = (field: string) => format(messages.exists, { attribute: field.replace(/_/g, ' ') });

/** Each field's own rule, without throwing: the values that passed and the messages of those that did not. */
function checkFields<S extends Schema>(fields: Record<string, unknown>, schema: S): { values: Partial<Infer<S>>; errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [name, field] of Object.entries(schema)) {
    const parsed = field.parse(fields[name], name);
    if (parsed.ok) values[name] = parsed.value;
    else errors[name] = [parsed.message];
  }
  return { values: values as Partial<Infer<S>>, errors };
}

/**
 * The reference ids' messages. A state must be in the given country and a city in the given state;
 * a city without a state cannot be placed, so it is invalid. A reference is not judged against a
 * parent that is itself wrong: the parent's message already says what to fix.
 */
async function checkPlace(values: { country_id?: number; state_id?: number; city_id?: number }, errors: FieldErrors): Promise<FieldErrors> {
  const { country_id: countryId, state_id: stateId, city_id: cityId } = values;
  if (countryId === undefined) return {};
  if (!(await findCountry(countryId))) return { country_id: [invalid('country_id')] };
  if (stateId !== undefined && !(await stateBelongsTo(stateId, countryId))) return { state_id: [invalid('state_id')] };
  if (cityId !== undefined && !errors.state_id && (stateId === undefined || !(await cityBelongsTo(cityId, stateId)))) {
    return { city_id: [invalid('city_id')] };
  }
  return {};
}

/** Validate a sender body (plus `sender_id` on update); one ValidationError lists every failing field. */
export async function readSenderInput(fields: Record<string, unknown>, withSenderId: true): Promise<SenderInput & { sender_id: number }>;
export async function readSenderInput(fields: Record<string, unknown>, withSenderId: false): Promise<SenderInput>;
export async function readSenderInput(fields: Record<string, unknown>, withSenderId: boolean): Promise<SenderInput & { sender_id?: number }> {
  const schema = withSenderId ? { sender_id: senderId, ...senderFields } : senderFields;
  const { values, errors } = checkFields(fields, schema);
  if (values.from_email !== undefined && onServiceDomain(values.from_email)) errors.from_email = [serviceAddressMessage];
  const placeErrors = await checkPlace(values, errors);
  const all: FieldErrors = {};
  for (const name of Object.keys(schema)) {
    const messagesOfField = errors[name] ?? placeErrors[name];
    if (messagesOfField) all[name] = messagesOfField;
  }
  if (Object.keys(all).length > 0) throw new ValidationError(all);
  const input = values as Infer<typeof senderFields> & { sender_id?: number };
  return {
    ...(withSenderId ? { sender_id: input.sender_id } : {}),
    from_name: input.from_name,
    from_email: input.from_email,
    reply_to_email: input.reply_to_email,
    country_id: input.country_id,
    state_id: input.state_id ?? null,
    city_id: input.city_id ?? null,
    zip_code: input.zip_code ?? null,
    company_address: input.company_address,
    company_address2: input.company_address2 ?? null,
    nickname: input.nickname,
  };
}
