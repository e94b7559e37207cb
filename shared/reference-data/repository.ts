// Countries, states and cities: every table access for the reference data, a container cache over
// it, and the idempotent seeder that loads it into the table from npm `@countrystatecity/countries`.
//
// Stored as gzip-compressed JSON in binary attributes: one item with every country and state
// (~75 KB), one item per country with its cities (the largest, the United States, ~140 KB), and a
// version marker written last. Readers need only the table, so the data stays out of every bundle.
import { gunzipSync, gzipSync } from 'node:zlib';
import { isoTimestamp } from '../time';
import { batchWriteAll, putRequest } from '../table/batch';
import { referenceCitiesKey, referenceRegionsKey, referenceVersionKey } from './keys';
import { type Key } from '../table/keys';
import { getItem, putItem, type Item } from '../table/records';

export interface Country {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  phone_code: string;
  currency: string;
  emoji: string;
}

export interface State {
  id: number;
  name: string;
  country_id: number;
  state_code: string;
}

export interface City {
  id: number;
  name: string;
  state_id: number;
  country_id: number;
}

/** Bumped when the stored layout changes, so a deploy re-seeds even when the package did not change. */
const storageFormat = 1;

/** DynamoDB's item limit is 400 KB; refuse well below it rather than fail half-way through a seed. */
const maxItemBytes = 350 * 1024;

/** Countries whose cities stay decoded in a warm container (the largest is about 3 MB decoded). */
const cachedCountryLimit = 16;

interface Regions {
  countries: Country[];
  states: State[];
  countriesById: Map<number, Country>;
  statesById: Map<number, State>;
  /** Lower-cased ISO2, ISO3 and name -> country. */
  countriesByCode: Map<string, Country>;
}

class ReferenceDataMissing extends Error {
  constructor(what: string) {
    super(`Reference data is not seeded (${what} missing): run seedReferenceData()`);
    this.name = 'ReferenceDataMissing';
  }
}

function compress(value: unknown): Uint8Array {
  return gzipSync(JSON.stringify(value));
}

function decompress<T>(item: Item, what: string): T {
  const data = item.data;
  if (!(data instanceof Uint8Array)) throw new ReferenceDataMissing(what);
  return JSON.parse(gunzipSync(data).toString('utf8')) as T;
}

// Reading

let regions: Promise<Regions> | undefined;
const citiesByCountry = new Map<number, Promise<City[]>>();

async function readRegions(): Promise<Regions> {
  const item = await getItem(referenceRegionsKey());
  if (!item) throw new ReferenceDataMissing('countries and states');
  const { countries, states } = decompress<{ countries: Country[]; states: State[] }>(item, 'countries and states');
  const countriesByCode = new Map<string, Country>();
  for (const country of countries) {
    for (const code of [country.iso2, country.iso3, country.name]) countriesByCode.set(code.toLowerCase(), country);
  }
  return {
    countries,
    states,
    countriesById: new Map(countries.map((country) => [country.id, country])),
    statesById: new Map(states.map((state) => [state.id, state])),
    countriesByCode,
  };
}

/** Every country and state, read once per container; a failed read is retried on the next call. */
function loadRegions(): Promise<Regions> {
  regions ??= readRegions().catch((error: unknown) => {
    regions = undefined;
    throw error;
  });
  return regions;
}

async function readCities(countryId: number): Promise<City[]> {
  const item = await getItem(referenceCitiesKey(countryId));
  // A country without states has no cities and no item.
  if (!item) return [];
  const rows = decompress<[number, string, number][]>(item, `cities of country ${countryId}`);
  return rows.map(([id, name, state_id]) => ({ id, name, state_id, country_id: countryId }));
}

/** One country's cities, kept for the most recently used countries. */
function loadCities(countryId: number): Promise<City[]> {
  const cached = citiesByCountry.get(countryId);
  if (cached) {
    // Re-insert so Map order is least recently used first.
    citiesByCountry.delete(countryId);
    citiesByCountry.set(countryId, cached);
    return cached;
  }
  const loading = readCities(countryId).catch((error: unknown) => {
    citiesByCountry.delete(countryId);
    throw error;
  });
  citiesByCountry.set(countryId, loading);
  if (citiesByCountry.size > cachedCountryLimit) citiesByCountry.delete(citiesByCountry.keys().next().value as number);
  return loading;
}

/** Drop the container cache (after a seed, and in tests). */
export function forgetReferenceCache(): void {
  regions = undefined;
  citiesByCountry.clear();
}

/** Every country and every state, in the package's country order. */
export async function listCountriesAndStates(): Promise<{ countries: readonly Country[]; states: readonly State[] }> {
  const { countries, states } = await loadRegions();
  return { countries, states };
}

export async function findCountry(id: number): Promise<Country | undefined> {
  return (await loadRegions()).countriesById.get(id);
}

/** A country by ISO2 (`US`), ISO3 (`USA`) or English name (`United States`), ignoring case and spaces around. */
export async function findCountryByCode(isoOrName: string): Promise<Country | undefined> {
  return (await loadRegions()).countriesByCode.get(isoOrName.trim().toLowerCase());
}

export async function findState(id: number): Promise<State | undefined> {
  return (await loadRegions()).statesById.get(id);
}

export async function stateBelongsTo(stateId: number, countryId: number): Promise<boolean> {
  return (await findState(stateId))?.country_id === countryId;
}

/** A country's cities, grouped by state; undefined when there is no such country. */
export async function citiesOfCountry(countryId: number): Promise<City[] | undefined> {
  if (!(await findCountry(countryId))) return undefined;
  return loadCities(countryId);
}

/** A state's cities; undefined when there is no such state. */
export async function citiesOfState(stateId: number): Promise<City[] | undefined> {
  const state = await findState(stateId);
  if (!state) return undefined;
  return (await loadCities(state.country_id)).filter((city) => city.state_id === stateId);
}

export async function cityBelongsTo(cityId: number, stateId: number): Promise<boolean> {
  return (await citiesOfState(stateId))?.some((city) => city.id === cityId) ?? false;
}

// Seeding

async function putItems(items: (Item & Key)[]): Promise<void> {
  await batchWriteAll(items.map(putRequest));
}

function dataItem(key: Key, entity: string, version: string, value: unknown, extra: Item = {}): Item & Key {
  const data = compress(value);
  if (data.length > maxItemBytes) throw new Error(`Reference item ${key.pk}/${key.sk} is ${data.length} bytes compressed; split it`);
  return { ...key, entity, version, ...extra, data };
}

export interface SeedResult {
  version: string;
  /** false when the table already held this version and nothing was written. */
  written: boolean;
  items: number;
}

/**
 * Load the reference data into the table when the marker says it holds another version (or none).
 * Idempotent and safe to run concurrently: every write is a full overwrite with the same content,
 * and the marker goes last, so an interrupted seed is simply repeated.
 */
export async function seedReferenceData(): Promise<SeedResult> {
  // Loaded here, not imported at the top, so modules that only read never load the package's files.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load; node16 rules refuse import() of a .ts path
  const source = require('./source') as typeof import('./source');
  const version = `${source.referenceSourceVersion()}/format-${storageFormat}`;
  const marker = await getItem(referenceVersionKey());
  if (marker?.version === version) return { version, written: false, items: 0 };
  const { countries, states, citiesByCountry: cities } = source.loadReferenceSource();
  const items = [dataItem(referenceRegionsKey(), 'reference-regions', version, { countries, states })];
  for (const [countryId, rows] of cities) {
    items.push(dataItem(referenceCitiesKey(countryId), 'reference-cities', version, rows, { country_id: countryId }));
  }
  await putItems(items);
  await putItem({ Item: { ...referenceVersionKey(), entity: 'reference-version', version, seeded_at: isoTimestamp() } });
  forgetReferenceCache();
  return { version, written: true, items: items.length };
}
