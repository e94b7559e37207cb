// Keys of the global reference data (countries, states, cities).
import { type Key, idSortKey } from '../table/keys';

// Reference data (countries, states, cities): global, not account data, so no account id

/** The seeded version marker: written last, so its presence means every item below is complete. */
export function referenceVersionKey(): Key {
  return { pk: 'REFERENCE', sk: 'VERSION' };
}

/** Every country and state in one item, so the country-state-city list costs one GetItem. */
export function referenceRegionsKey(): Key {
  return { pk: 'REFERENCE', sk: 'COUNTRIES_AND_STATES' };
}

/** One country's cities; a partition per country spreads the reads. */
export function referenceCitiesKey(countryId: number): Key {
  return { pk: `REFERENCE#CITIES#${idSortKey(countryId)}`, sk: 'CITIES' };
}
