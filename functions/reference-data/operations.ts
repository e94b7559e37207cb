// Reference data operation: countries and states always, cities of one country or one state on request.
import {
  citiesOfCountry,
  citiesOfState,
  findCountry,
  findState,
  listCountriesAndStates,
  type City,
} from '../../shared/reference-data/repository';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { attributeName, format, integer, messages, validate } from '../../shared/validation';

export const filterSchema = { country_id: integer(), state_id: integer() };

function invalid(field: string): string {
  return format(messages.exists, { attribute: attributeName(field) });
}

/**
 * The cities a filter asks for. Every city in the world (about 150,000, over 10 MB of JSON) does not
 * fit a Lambda response, so without a filter there are none. A state filter wins over a country
 * filter, but a state of another country than the one named is refused.
 */
async function filteredCities(filter: { country_id?: number; state_id?: number }): Promise<readonly City[]> {
  const errors: FieldErrors = {};
  const country = filter.country_id === undefined ? undefined : await findCountry(filter.country_id);
  if (filter.country_id !== undefined && !country) errors.country_id = [invalid('country_id')];
  if (filter.state_id !== undefined) {
    const state = await findState(filter.state_id);
    if (!state || (country && state.country_id !== country.id)) errors.state_id = [invalid('state_id')];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (filter.state_id !== undefined) return (await citiesOfState(filter.state_id)) ?? [];
  if (filter.country_id !== undefined) return (await citiesOfCountry(filter.country_id)) ?? [];
  return [];
}

export const countryStateCity = accountOperation(async ({ request }) => {
  const filter = validate(request.query, filterSchema);
  const { countries, states } = await listCountriesAndStates();
  return ok({ countries, states, cities: await filteredCities(filter) });
});
