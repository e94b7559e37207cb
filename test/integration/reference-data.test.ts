// Country-state-city reference data on DynamoDB Local: the seeder, the repository and the endpoint.
import { handler } from '../../functions/reference-data/handler';
import { db, tableName } from '../../shared/table/client';
import {
  cityBelongsTo,
  citiesOfCountry,
  findCountry,
  findCountryByCode,
  forgetReferenceCache,
  seedReferenceData,
  stateBelongsTo,
} from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, parsed, type Keys } from '../support/events';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { referenceRegionsKey } from '../../shared/reference-data/keys';

type Body = { countries: Record<string, unknown>[]; states: Record<string, unknown>[]; cities: Record<string, unknown>[] };

async function call(keys: Keys | undefined, query: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  return parsed(await handler(apiEvent({ method: 'GET', path: 'get/country-state-city', query, headers: { ...(keys ? authHeaders(keys) : {}), ...headers } })));
}

// Ids of the package's data (`@countrystatecity/countries`), checked against names below so a data
// change that moves them fails here rather than silently.
const UNITED_STATES = 233;
const CALIFORNIA = 1416;
const INDIA = 101;

describe('reference data', () => {
  let keys: Keys;

  beforeAll(async () => {
    await seedReferenceData();
    keys = await newAccount();
  }, 60_000);

  describe('seedReferenceData', () => {
    it('does nothing when the table already holds this version', async () => {
      const again = await seedReferenceData();
      expect(again).toEqual({ version: expect.stringMatching(/^countrystatecity-\d+\.\d+\.\d+\/format-\d+$/), written: false, items: 0 });
    });

    it('keeps every country and state in one compressed item well under the 400 KB limit', async () => {
      const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: referenceRegionsKey() }));
      expect(Item?.data).toBeInstanceOf(Uint8Array);
      expect((Item?.data as Uint8Array).length).toBeLessThan(350 * 1024);
    });
  });

  describe('repository', () => {
    beforeEach(() => forgetReferenceCache());

    it('finds a country by id, and nothing for an unknown one', async () => {
      expect(await findCountry(UNITED_STATES)).toEqual({
        id: UNITED_STATES,
        name: 'United States',
        iso2: 'US',
        iso3: 'USA',
        phone_code: '1',
        currency: 'USD',
        emoji: '🇺🇸',
      });
      expect(await findCountry(999_999)).toBeUndefined();
    });

    it.each(['US', 'usa', ' United States ', 'united states'])('finds a country by ISO2, ISO3 or name (%j)', async (code) => {
      expect((await findCountryByCode(code))?.id).toBe(UNITED_STATES);
    });

    it('finds nothing for an unknown code', async () => {
      expect(await findCountryByCode('Atlantis')).toBeUndefined();
      expect(await findCountryByCode('')).toBeUndefined();
    });

    it('checks that a state belongs to a country and a city to a state', async () => {
      const cities = (await citiesOfCountry(UNITED_STATES)) ?? [];
      const losAngeles = cities.find((city) => city.name === 'Los Angeles' && city.state_id === CALIFORNIA);
      expect(losAngeles).toBeDefined();
      expect(await stateBelongsTo(CALIFORNIA, UNITED_STATES)).toBe(true);
      expect(await stateBelongsTo(CALIFORNIA, INDIA)).toBe(false);
      expect(await stateBelongsTo(999_999, UNITED_STATES)).toBe(false);
      expect(await cityBelongsTo(losAngeles?.id as number, CALIFORNIA)).toBe(true);
      const texasCity = cities.find((city) => city.state_id !== CALIFORNIA) as { id: number };
      expect(await cityBelongsTo(texasCity.id, CALIFORNIA)).toBe(false);
      expect(await cityBelongsTo(999_999_999, CALIFORNIA)).toBe(false);
      expect(await cityBelongsTo(losAngeles?.id as number, 999_999)).toBe(false);
    });

    it('answers undefined for the cities of an unknown country', async () => {
      expect(await citiesOfCountry(999_999)).toBeUndefined();
    });
  });

  describe('get/country-state-city', () => {
    it('answers every country and state, and no cities without a filter', async () => {
      const result = await call(keys);
      expect(result.status).toBe(200);
      expect(result.body.status).toBe('success');
      const message = result.body.message as Body;
      expect(Object.keys(message)).toEqual(['countries', 'states', 'cities']);
      expect(message.countries.length).toBeGreaterThan(240);
      expect(message.states.length).toBeGreaterThan(4000);
      expect(message.cities).toEqual([]);
      expect(message.countries[0]).toEqual({ id: 1, name: 'Afghanistan', iso2: 'AF', iso3: 'AFG', phone_code: '93', currency: 'AFN', emoji: '🇦🇫' });
      expect(message.countries).toContainEqual(expect.objectContaining({ id: UNITED_STATES, name: 'United States' }));
      expect(message.states).toContainEqual({ id: CALIFORNIA, name: 'California', country_id: UNITED_STATES, state_code: 'CA' });
      const countryIds = new Set(message.countries.map((country) => country.id));
      expect(message.states.every((state) => countryIds.has(state.country_id))).toBe(true);
    });

    it("filters cities by state: that state's cities only", async () => {
      const message = (await call(keys, { state_id: CALIFORNIA })).body.message as Body;
      expect(message.cities.length).toBeGreaterThan(1000);
      expect(message.cities.every((city) => city.state_id === CALIFORNIA && city.country_id === UNITED_STATES)).toBe(true);
      expect(message.cities).toContainEqual({ id: expect.any(Number), name: 'Los Angeles', state_id: CALIFORNIA, country_id: UNITED_STATES });
      expect(Object.keys(message.cities[0] as object)).toEqual(['id', 'name', 'state_id', 'country_id']);
    });

    it("filters cities by country: every state's cities, and the largest country's answer fits a Lambda response", async () => {
      const result = await handler(apiEvent({ method: 'GET', path: 'get/country-state-city', query: { country_id: UNITED_STATES }, headers: authHeaders(keys) }));
      const message = (JSON.parse(result.body as string) as { message: Body }).message;
      expect(message.cities.every((city) => city.country_id === UNITED_STATES)).toBe(true);
      expect(new Set(message.cities.map((city) => city.state_id)).size).toBeGreaterThan(50);
      // Lambda's synchronous response limit is 6 MB.
      expect(Buffer.byteLength(result.body as string)).toBeLessThan(6 * 1024 * 1024);
    });

    it('accepts a state with its own country, and refuses a state of another country', async () => {
      const both = await call(keys, { country_id: UNITED_STATES, state_id: CALIFORNIA });
      expect((both.body.message as Body).cities.length).toBeGreaterThan(1000);
      const mismatch = await call(keys, { country_id: INDIA, state_id: CALIFORNIA });
      expect(mismatch).toEqual({ status: 422, body: { status: 'failed', errors: { state_id: ['The selected state id is invalid.'] } } });
    });

    it.each([
      [{ country_id: 999_999 }, { country_id: ['The selected country id is invalid.'] }],
      [{ state_id: 999_999 }, { state_id: ['The selected state id is invalid.'] }],
      [{ country_id: 999_999, state_id: 999_999 }, { country_id: ['The selected country id is invalid.'], state_id: ['The selected state id is invalid.'] }],
      [{ country_id: 'abc' }, { country_id: ['The country id field must be an integer.'] }],
      [{ state_id: '1.5' }, { state_id: ['The state id field must be an integer.'] }],
    ])('refuses the filter %j', async (query, errors) => {
      expect(await call(keys, query)).toEqual({ status: 422, body: { status: 'failed', errors } });
    });

    it('answers 401 with both messages when both headers are missing', async () => {
      expect(await call(undefined)).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('answers 401 for a wrong secret', async () => {
      const result = await call({ public_key: keys.public_key, secret_key: 'sk_wrong' });
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });

    it('answers 405 for another method', async () => {
      const result = await handler(apiEvent({ method: 'POST', path: 'get/country-state-city', headers: authHeaders(keys) }));
      expect(result.statusCode).toBe(405);
    });
  });
});
