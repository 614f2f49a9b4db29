import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/data/db/open.js';
import { ZipRepository } from '../../src/data/repositories/zips.js';
import { privateDatabase } from '../helpers/server.js';
import { beforeAllOrFailEach } from './fixture-hooks.js';

// Each test makes its repository (Stryker credits a test only with what runs in it); the copy of
// the run's database is opened once, and removed after.
let file: string;
let db: ReturnType<typeof openDatabase>;
beforeAllOrFailEach(() => {
  file = privateDatabase('zip-repository-');
  db = openDatabase(file);
});
afterAll(() => {
  db?.close();
  rmSync(path.dirname(file), { recursive: true, force: true });
});

const BEVERLY_HILLS = {
  zip: '90210',
  city: 'Beverly Hills',
  stateCode: 'CA',
  stateName: 'California',
  county: 'Los Angeles',
  countyFips: '06037',
  lat: 34.0901,
  lng: -118.4065,
  timezone: 'America/Los_Angeles',
  lastUpdated: '2026-03-11T00:00:00.000Z',
};
const OTHER_ST_LOUIS = [
  ['48880', 'MI'],
  ['74866', 'OK'],
];
const zipsOf = (records: { zip: string }[]) => records.map((r) => r.zip);

/** The same questions before the table is read (SQL) and after (the columns in memory): the same answers. */
const bothWays = (name: string, check: (zips: ZipRepository) => void) => {
  it(`${name} (read from SQLite before the table is loaded)`, () => {
    const zips = new ZipRepository(db);
    check(zips);
    expect(zips.inMemory('90210')).toBeUndefined();
  });
  it(`${name} (from the table in memory)`, () => {
    const zips = new ZipRepository(db);
    zips.warm();
    check(zips);
    expect(zips.inMemory('90210')).toEqual(BEVERLY_HILLS);
  });
};

describe('the ZIP repository', () => {
  it('the 51 states from memory, by code; totals', () => {
    const zips = new ZipRepository(db);
    const states = zips.allStates();
    expect(states).toHaveLength(51);
    expect(states[0]).toEqual({ stateCode: 'AK', stateName: 'Alaska', fips: '02', zipCount: 273 });
    expect(states.map((s) => s.stateCode)).toEqual(states.map((s) => s.stateCode).sort());
    expect(zips.state('CA')).toEqual({ stateCode: 'CA', stateName: 'California', fips: '06', zipCount: expect.any(Number) });
    expect(zips.state('XX')).toBeNull();
    expect(zips.stats()).toEqual({ totalZips: 40_977, totalStates: 51 });
    expect(states.reduce((n, s) => n + s.zipCount, 0)).toBe(40_977);
  });

  bothWays('ZIPs by code, with their state’s name; codes without a ZIP left out', (zips) => {
    expect(zips.findByZips(['90210'])).toEqual([BEVERLY_HILLS]);
    expect(zips.findByZips(['00000'])).toEqual([]);
    expect(zips.findByZips(['9021'])).toEqual([]);
    expect(zips.findByZips(['90210', '00000', '00501']).sort((a, b) => a.zip.localeCompare(b.zip))).toEqual([
      {
        ...BEVERLY_HILLS,
        zip: '00501',
        city: 'Holtsville',
        stateCode: 'NY',
        stateName: 'New York',
        county: 'Suffolk',
        countyFips: '36103',
        lat: 40.8154,
        lng: -73.0451,
        timezone: 'America/New_York',
      },
      BEVERLY_HILLS,
    ]);
  });

  bothWays('pages of several states: each state’s ZIPs in order, the window after the offset, by state', (zips) => {
    expect(zipsOf(zips.pageByStates(['CO', 'AK'], 2, 1))).toEqual(['99502', '99503', '80002', '80003']);
    expect(zips.pageByStates(['CO', 'AK'], 2, 1).map((r) => [r.stateCode, r.stateName])).toEqual([
      ['AK', 'Alaska'],
      ['AK', 'Alaska'],
      ['CO', 'Colorado'],
      ['CO', 'Colorado'],
    ]);
    expect(zipsOf(zips.pageByStates(['AK'], 3, 0))).toEqual(['99501', '99502', '99503']);
    expect(zips.pageByStates(['AK'], 3, 0)[0]).toMatchObject({ city: 'Anchorage', stateName: 'Alaska' });
    // Past the state's last ZIP, and a state with none: nothing.
    expect(zips.pageByStates(['AK'], 5, 273)).toEqual([]);
    expect(zipsOf(zips.pageByStates(['AK'], 5, 272))).toHaveLength(1);
    expect(zips.pageByStates(['XX'], 5, 0)).toEqual([]);
  });

  bothWays('ZIPs of a city, matched forgivingly, in one state or all', (zips) => {
    const stLouis = zips.findByCity('St. Louis', 'MO');
    expect(stLouis.slice(0, 3).map((r) => [r.zip, r.city, r.stateName])).toEqual([
      ['63101', 'Saint Louis', 'Missouri'],
      ['63102', 'Saint Louis', 'Missouri'],
      ['63103', 'Saint Louis', 'Missouri'],
    ]);
    expect(zipsOf(stLouis)).toEqual(zipsOf(stLouis).sort());
    const everywhere = zips.findByCity('saint louis', null);
    expect(everywhere[0]).toMatchObject({ zip: '48880', stateCode: 'MI', stateName: 'Michigan' });
    expect(everywhere.filter((r) => r.stateCode !== 'MO').map((r) => [r.zip, r.stateCode])).toEqual(OTHER_ST_LOUIS);
    expect(everywhere.length).toBe(stLouis.length + OTHER_ST_LOUIS.length);
    expect(zips.findByCity('Saint Louis', 'CA')).toEqual([]);
  });

  bothWays('cities by a prefix, most ZIPs first, then by name and state, up to the limit', (zips) => {
    expect(zips.citiesByPrefix('spring', null, 4)).toEqual([
      { city: 'Springfield', stateCode: 'IL', zipCount: 35 },
      { city: 'Springfield', stateCode: 'MA', zipCount: 19 },
      { city: 'Springfield', stateCode: 'MO', zipCount: 16 },
      { city: 'Spring', stateCode: 'TX', zipCount: 12 },
    ]);
    expect(zips.citiesByPrefix('spring', 'MA', 1)).toEqual([{ city: 'Springfield', stateCode: 'MA', zipCount: 19 }]);
    // "St" is also typed for "Saint".
    expect(zips.citiesByPrefix('St', 'MO', 1)).toEqual([{ city: 'Saint Louis', stateCode: 'MO', zipCount: 68 }]);
    expect(zips.citiesByPrefix('zzzz', null, 4)).toEqual([]);
  });

  it('the table is read once, on first use or when warmed, and then every lookup is from it', () => {
    const zips = new ZipRepository(db);
    expect(zips.statePageInMemory('AK', 2, 0)).toBeUndefined();
    const table = zips.table();
    expect(zips.table()).toBe(table);
    zips.warm();
    expect(zips.table()).toBe(table);
    expect(table.size).toBe(40_977);
    expect(zips.inMemory('00000')).toBeNull();
    expect(zips.inMemory('abcde')).toBeNull();
    // The first row of the table is a ZIP like any other.
    expect(zips.inMemory('00501')).toMatchObject({ zip: '00501', city: 'Holtsville' });
    expect(zipsOf(zips.statePageInMemory('AK', 2, 1)!)).toEqual(['99502', '99503']);
    // In the order asked for, each once.
    expect(zipsOf(zips.findByZips(['90210', '00501', '00000', '99501']))).toEqual(['90210', '00501', '99501']);
    // A state asked twice is one state's page.
    expect(zipsOf(zips.pageByStates(['CO', 'AK', 'CO'], 1, 0))).toEqual(['99501', '80001']);
  });

  it('a page over states holding a quarter of all ZIPs or more reads the table, once; a smaller one reads each state by the index', () => {
    const zips = new ZipRepository(db);
    const biggestFirst = [...zips.allStates()].sort((a, b) => b.zipCount - a.zipCount);
    let held = 0;
    const under: string[] = [];
    for (const state of biggestFirst) {
      if ((held + state.zipCount) * 4 >= 40_977) break;
      held += state.zipCount;
      under.push(state.stateCode);
    }
    const crossing = biggestFirst[under.length]!.stateCode;
    // Each state alone, from SQLite: what the larger pages must answer.
    const expected = (codes: string[]) => [...codes].sort().flatMap((code) => zipsOf(zips.pageByStates([code], 3, 2)));
    expect(zipsOf(zips.pageByStates([...under, 'XX'], 3, 2))).toEqual(expected(under));
    expect(zips.inMemory('90210')).toBeUndefined();
    expect(zipsOf(zips.pageByStates([crossing, ...under], 3, 2))).toEqual(expected([crossing, ...under]));
    expect(zips.inMemory('90210')).toEqual(BEVERLY_HILLS);
    const table = zips.table();
    zips.pageByStates([crossing, ...under], 3, 2);
    expect(zips.table()).toBe(table);
  });

  it('warming reads the table', () => {
    const zips = new ZipRepository(db);
    zips.warm();
    expect(zips.inMemory('99950')).toMatchObject({ city: 'Ketchikan', stateCode: 'AK', stateName: 'Alaska', timezone: 'America/Sitka' });
  });
});
