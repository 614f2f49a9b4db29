import { describe, expect, it } from 'vitest';
import { ZipTable, type ZipColumnsRow } from '../../src/data/repositories/zip-table.js';

/** Row i of a made-up table: ZIP 10000 + i, each column's value given or one shared by every row. */
const row = (i: number, over: Partial<Record<'city' | 'state' | 'county' | 'fips' | 'zone' | 'updated', string>> = {}): ZipColumnsRow => [
  String(10_000 + i),
  over.city ?? 'Town',
  over.state ?? 'CO',
  over.county ?? 'County',
  over.fips ?? '08001',
  i / 10,
  -i / 10,
  over.zone ?? 'America/Denver',
  over.updated ?? '2026-01-01',
];
const names: Record<string, string> = { CO: 'Colorado', NY: 'New York', AK: 'Alaska' };
const table = (rows: ZipColumnsRow[], count = rows.length) => new ZipTable(count, rows, (code) => names[code] ?? `state ${code}`);
const many = (n: number, over: (i: number) => Parameters<typeof row>[1]) => Array.from({ length: n }, (_, i) => row(i, over(i)));

describe('the ZIP table', () => {
  const rows: ZipColumnsRow[] = [
    ['00501', 'Holtsville', 'NY', 'Suffolk', '36103', 40.8154, -73.0451, 'America/New_York', '2026-03-11'],
    ['09999', 'Edge', 'NY', 'Suffolk', '36103', 1, 2, 'America/New_York', '2026-03-11'],
    ['80001', 'Arvada', 'CO', 'Jefferson', '08059', 39.8, -105.1, 'America/Denver', '2026-03-11'],
    ['80002', 'Arvada', 'CO', 'Jefferson', '08059', 39.79, -105.09, 'America/Denver', '2026-03-12'],
    ['80010', 'Aurora', 'CO', 'Arapahoe', '08005', 39.7, -104.8, 'America/Denver', '2026-03-11'],
    ['99501', 'Anchorage', 'AK', 'Anchorage', '02020', 61.2, -149.9, 'America/Anchorage', '2026-03-11'],
  ];

  it('finds a row by its five-digit code; anything else is no row', () => {
    const t = table(rows);
    expect(t.size).toBe(6);
    expect(['00501', '09999', '80001', '80002', '80010', '99501'].map((z) => t.rowOf(z))).toEqual([0, 1, 2, 3, 4, 5]);
    for (const z of ['80003', '00000', '8001', '800010', '8000a', '', '99999']) expect(t.rowOf(z), z).toBe(-1);
    // Characters beside the digits, whose codes would add up to a stored ZIP's number (8000·10 + 10, 8001·10 − 8).
    for (const z of ['8000:', '8001(']) expect(t.rowOf(z), z).toBe(-1);
  });

  it('makes a record with its strings and its state’s name; a code under 10000 keeps its zeros', () => {
    const t = table(rows);
    expect(t.record(0)).toEqual({
      zip: '00501',
      city: 'Holtsville',
      stateCode: 'NY',
      stateName: 'New York',
      county: 'Suffolk',
      countyFips: '36103',
      lat: 40.8154,
      lng: -73.0451,
      timezone: 'America/New_York',
      lastUpdated: '2026-03-11',
    });
    expect(t.record(3)).toEqual({
      zip: '80002',
      city: 'Arvada',
      stateCode: 'CO',
      stateName: 'Colorado',
      county: 'Jefferson',
      countyFips: '08059',
      lat: 39.79,
      lng: -105.09,
      timezone: 'America/Denver',
      lastUpdated: '2026-03-12',
    });
    expect([0, 1, 2, 5].map((r) => t.zipAt(r))).toEqual(['00501', '09999', '80001', '99501']);
    expect(table([row(0)]).zipAt(0)).toBe('10000');
    expect([t.cityAt(4), t.stateCodeAt(4), t.countyAt(4)]).toEqual(['Aurora', 'CO', 'Arapahoe']);
    expect([t.lat[5], t.lng[5]]).toEqual([61.2, -149.9]);
  });

  it('pages a state’s records in ZIP order after an offset, up to a limit', () => {
    const t = table(rows);
    const page = (state: string, offset: number, limit: number) => t.statePage(state, offset, limit).map((r) => r.zip);
    expect(page('CO', 0, 10)).toEqual(['80001', '80002', '80010']);
    expect(page('CO', 1, 1)).toEqual(['80002']);
    expect(page('CO', 1, 2)).toEqual(['80002', '80010']);
    expect(page('CO', 2, 5)).toEqual(['80010']);
    expect(page('CO', 3, 5)).toEqual([]);
    expect(page('CO', 0, 0)).toEqual([]);
    expect(page('NY', 0, 2)).toEqual(['00501', '09999']);
    expect(page('XX', 0, 2)).toEqual([]);
    expect(t.statePage('AK', 0, 1)[0]).toMatchObject({ city: 'Anchorage', stateName: 'Alaska' });
  });

  it('refuses rows out of order, repeated, not five digits, or more or fewer than announced', () => {
    expect(() => table([row(1), row(0)])).toThrow('ZIP rows must be five-digit codes in order: 10000');
    expect(() => table([row(1), row(1)])).toThrow('ZIP rows must be five-digit codes in order: 10001');
    expect(() => table([['1234', ...row(0).slice(1)] as unknown as ZipColumnsRow])).toThrow('ZIP rows must be five-digit codes in order: 1234');
    expect(() => table([row(0), row(1)], 1)).toThrow('more than the 1 ZIP rows expected');
    expect(() => table([row(0)], 2)).toThrow('1 ZIP rows, 2 expected');
    // The first row may be 00000.
    expect(table([['00000', ...row(0).slice(1)] as unknown as ZipColumnsRow]).rowOf('00000')).toBe(0);
  });

  it('holds up to 65,535 distinct cities, counties and FIPS codes, and 255 states, zones and dates', () => {
    const full = many(0xffff, (i) => ({ city: `c${i}`, county: `k${i}`, fips: `f${i}`, state: `s${i % 0xff}`, zone: `z${i % 0xff}`, updated: `u${i % 0xff}` }));
    const t = table(full);
    expect(t.record(0xfffe)).toMatchObject({ city: 'c65534', county: 'k65534', countyFips: 'f65534', stateCode: `s${0xfffe % 0xff}` });
    expect(t.record(0xfe)).toMatchObject({ stateCode: 's254', timezone: 'z254', lastUpdated: 'u254' });
  });

  it('refuses a 65,536th distinct city, county or FIPS code, and a 256th state, zone or date', () => {
    const sixteen = 'too many distinct cities or counties for 16 bits';
    const eight = 'too many distinct states, zones or dates for 8 bits';
    expect(() => table(many(0x10000, (i) => ({ city: `c${i}` })))).toThrow(sixteen);
    expect(() => table(many(0x10000, (i) => ({ county: `k${i}` })))).toThrow(sixteen);
    expect(() => table(many(0x10000, (i) => ({ fips: `f${i}` })))).toThrow(sixteen);
    expect(() => table(many(0x100, (i) => ({ state: `s${i}` })))).toThrow(eight);
    expect(() => table(many(0x100, (i) => ({ zone: `z${i}` })))).toThrow(eight);
    expect(() => table(many(0x100, (i) => ({ updated: `u${i}` })))).toThrow(eight);
  });
});
