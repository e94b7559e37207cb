// Reads countries, states and cities from the files of npm `@countrystatecity/countries`. Only the
// seeder loads this module (lazily), so no function bundle carries the package or its 74 MB of data.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package's own record shapes, reduced to the attributes we keep. */
interface PackageCountry {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  phonecode: string;
  currency: string;
  emoji: string;
}

interface PackageState {
  id: number;
  name: string;
  country_id: number;
  iso2: string;
}

interface PackageCity {
  id: number;
  name: string;
  state_id: number;
  country_id: number;
}

export interface SourceCountry {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  phone_code: string;
  currency: string;
  emoji: string;
}

export interface SourceState {
  id: number;
  name: string;
  country_id: number;
  state_code: string;
}

/** A city as the seeder stores it: `[id, name, state_id]` (its country is the item it lives in). */
export type SourceCityRow = [number, string, number];

export interface ReferenceSource {
  /** `countrystatecity-<package version>`: a new package version means new data to seed. */
  version: string;
  countries: SourceCountry[];
  states: SourceState[];
  /** Each country's cities, grouped by state in the states' order. */
  citiesByCountry: Map<number, SourceCityRow[]>;
}

const packageName = '@countrystatecity/countries';

/**
 * The package's data folder. `./data/*` is an exported subpath of the package: its layout is
 * `countries.json`, `<Country>-<ISO2>/states.json` and `<Country>-<ISO2>/<State>-<CODE>/cities.json`.
 */
function dataFolder(): string {
  return dirname(require.resolve(`${packageName}/data/countries.json`));
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** The installed package's version, read without loading the data (the seeder's fast path). */
export function referenceSourceVersion(): string {
  const packageFile = join(dataFolder(), '..', '..', 'package.json');
  return `countrystatecity-${readJson<{ version: string }>(packageFile).version}`;
}

function subfolders(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(folder, entry.name));
}

/**
 * Every country, state and city. The files are read directly rather than through the package's
 * loader functions, which fail over to `fs` per file and take about 15 times as long (11 s).
 */
export function loadReferenceSource(): ReferenceSource {
  const folder = dataFolder();
  const countries = readJson<PackageCountry[]>(join(folder, 'countries.json')).map(
    (country): SourceCountry => ({
      id: country.id,
      name: country.name,
      iso2: country.iso2,
      iso3: country.iso3,
      phone_code: country.phonecode,
      currency: country.currency,
      emoji: country.emoji,
    }),
  );
  const countryIds = new Set(countries.map((country) => country.id));
  const states: SourceState[] = [];
  const statesById = new Map<number, SourceState>();
  const citiesByState = new Map<number, SourceCityRow[]>();
  for (const countryFolder of subfolders(folder)) {
    const statesFile = join(countryFolder, 'states.json');
    if (!existsSync(statesFile)) continue;
    for (const state of readJson<PackageState[]>(statesFile)) {
      if (!countryIds.has(state.country_id)) throw new Error(`State ${state.id} names unknown country ${state.country_id}`);
      const row: SourceState = { id: state.id, name: state.name, country_id: state.country_id, state_code: state.iso2 };
      states.push(row);
      statesById.set(row.id, row);
    }
    for (const stateFolder of subfolders(countryFolder)) {
      const citiesFile = join(stateFolder, 'cities.json');
      if (!existsSync(citiesFile)) continue;
      for (const city of readJson<PackageCity[]>(citiesFile)) {
        const state = statesById.get(city.state_id);
        if (!state || state.country_id !== city.country_id) throw new Error(`City ${city.id} names unknown state ${city.state_id}`);
        const rows = citiesByState.get(city.state_id) ?? [];
        rows.push([city.id, city.name, city.state_id]);
        citiesByState.set(city.state_id, rows);
      }
    }
  }
  // Folder order is the file system's; keep the package's country order and group states by it.
  const countryOrder = new Map(countries.map((country, index) => [country.id, index]));
  states.sort((a, b) => (countryOrder.get(a.country_id) as number) - (countryOrder.get(b.country_id) as number) || a.name.localeCompare(b.name));
  const citiesByCountry = new Map<number, SourceCityRow[]>();
  for (const state of states) {
    const rows = citiesByState.get(state.id);
    if (!rows) continue;
    const countryRows = citiesByCountry.get(state.country_id) ?? [];
    countryRows.push(...rows);
    citiesByCountry.set(state.country_id, countryRows);
  }
  if (countries.length === 0 || states.length === 0 || citiesByCountry.size === 0) {
    throw new Error(`${packageName} data not found or in an unknown layout under ${folder}`);
  }
  return { version: referenceSourceVersion(), countries, states, citiesByCountry };
}
