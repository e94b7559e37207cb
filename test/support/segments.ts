// Helpers of the segment handler tests: the save/update form, the list, and a contact fixture.
import { handler } from '../../functions/segments/handler';
import type { ContactFields } from '../../shared/contacts/repository';
import { handlerCaller, type Keys, multipart } from './events';
import { settlingJobs } from './jobs';

export type Rule = [field: string, operator: string, value?: string];

/** Calls the segments handler; a save, update or delete returns once its background job has finished. */
export const callSegments = settlingJobs(handlerCaller(handler));

/** The save/update form: the three aligned arrays as indexed keys, as a browser form sends them. */
export function segmentForm(contactTypeId: number, name: string, rules: Rule[], extra: Record<string, string | number> = {}) {
  const fields: Record<string, string | number> = { contact_type_id: contactTypeId, segment_name: name, ...extra };
  rules.forEach(([field, operator, value], i) => {
    fields[`select_field[${i}]`] = field;
    fields[`select_operator[${i}]`] = operator;
    fields[`value[${i}]`] = value ?? '';
  });
  return multipart(fields);
}

export async function listSegments(keys: Keys) {
  const { body } = await callSegments(keys, 'GET', 'segment/list');
  return (body.message as { segments: Record<string, unknown>[] }).segments;
}

/** A contact in Kochi, Kerala (India, reference id 101). */
export function segmentContact(contactTypeId: number, email: string, extra: Partial<ContactFields> = {}): ContactFields {
  return {
    contact_type_id: contactTypeId,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email,
    alt_email: null,
    country: '101',
    state: 'Kerala',
    city: 'Kochi',
    address_line1: '1 Main Road',
    address_line2: '',
    state_province_region: '',
    postal_code: '682001',
    ...extra,
  };
}
