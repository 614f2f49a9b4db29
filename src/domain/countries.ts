import { continents, countries } from 'countries-list';

export type ContinentName = (typeof continents)[keyof typeof continents];

export interface CountryInfo {
  code: string;
  name: string;
  continent: ContinentName;
}

/** Country name and continent from an ISO 3166-1 alpha-2 code, or null for an unknown code. */
export function countryInfo(code: string): CountryInfo | null {
  const c = countries[code.toUpperCase() as keyof typeof countries];
  if (!c) return null;
  return { code: code.toUpperCase(), name: c.name, continent: continents[c.continent] };
}

export const CONTINENT_NAMES: readonly ContinentName[] = Object.values(continents);
