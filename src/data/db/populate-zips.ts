import type { Db } from './open.js';
import type { BuildHooks } from './build-hooks.js';
import { loadZipSource, ZIP_DATASET_DATE } from './sources/zip-source.js';
import { US_STATE_FIPS } from '../../domain/us-states.js';
import { timeZoneAt } from './sources/time-zones.js';
import { cityKey } from '../../domain/city-key.js';

export function populateZips(db: Db, hooks: BuildHooks): void {
  const rows = loadZipSource();
  const states = new Map<string, { name: string; count: number }>();
  for (const r of rows) {
    const s = states.get(r.stateCode) ?? { name: r.stateName, count: 0 };
    s.count++;
    states.set(r.stateCode, s);
  }
  const insertState = db.prepare('INSERT INTO states (state_code, state_name, fips, zip_count) VALUES (?, ?, ?, ?)');
  for (const [code, s] of states) insertState.run(code, s.name, US_STATE_FIPS[code], s.count);

  const insertZip = db.prepare(
    'INSERT INTO zips (zip, city, state_code, county, county_fips, lat, lng, timezone, last_updated, city_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // The dataset's publication date as an ISO 8601 timestamp (midnight UTC), as the ZIP document asks.
  const lastUpdated = `${ZIP_DATASET_DATE}T00:00:00.000Z`;
  let written = 0;
  for (const r of rows) {
    insertZip.run(r.zip, r.city, r.stateCode, r.county, r.countyFips, r.lat, r.lng, timeZoneAt(r.lat, r.lng), lastUpdated, cityKey(r.city));
    if (++written % 5000 === 0) hooks.onProgress?.('zips', written);
  }
  hooks.onProgress?.('zips', written);
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('zips.lastUpdated', ZIP_DATASET_DATE);
}
