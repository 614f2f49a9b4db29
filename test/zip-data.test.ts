import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadZipSource, ZIP_DATASET_DATE, zipSourceFile } from '../src/data/db/sources/zip-source.js';
import { US_STATE_FIPS } from '../src/domain/us-states.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

describe('ZIP source data', () => {
  it('keeps the 50 states and DC only, with 5-digit county FIPS codes', () => {
    const rows = loadZipSource();
    const states = new Set(rows.map((r) => r.stateCode));
    expect([...states].sort()).toEqual(Object.keys(US_STATE_FIPS).sort());
    expect(new Set(rows.map((r) => r.zip)).size).toBe(rows.length);
    for (const r of rows) {
      expect(r.countyFips.startsWith(US_STATE_FIPS[r.stateCode]!)).toBe(true);
      expect(r.countyFips).toMatch(/^\d{5}$/);
    }
    expect(rows.find((r) => r.zip === '90210')).toMatchObject({ countyFips: '06037', county: 'Los Angeles' });
  });

  it('states the dataset date that the packaged README gives', () => {
    const readme = readFileSync(path.join(path.dirname(zipSourceFile()), '..', 'README.md'), 'utf8');
    const m = readme.match(/Last Checked\/Updated:\*\*\s*_(\d{1,2})(?:st|nd|rd|th) (\w+) (\d{4})_/);
    expect(m).not.toBeNull();
    const [, day, month, year] = m!;
    const iso = `${year}-${String(MONTHS.indexOf(month!.toLowerCase()) + 1).padStart(2, '0')}-${day!.padStart(2, '0')}`;
    expect(iso).toBe(ZIP_DATASET_DATE);
  });
});
