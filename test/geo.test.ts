import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { haversineMiles } from '../src/domain/geo.js';
import { ZipSpatialIndex, type ZipPoint } from '../src/domain/zip-spatial-index.js';
import { loadZipSource } from '../src/data/db/sources/zip-source.js';
import { ZipTable } from '../src/data/repositories/zip-table.js';

describe('haversineMiles', () => {
  it('matches known distances', () => {
    // One degree along a meridian or the equator is R * pi / 180 = 69.0941 mi.
    expect(haversineMiles(45, -100, 46, -100)).toBeCloseTo(69.0941, 3);
    expect(haversineMiles(0, 10, 0, 11)).toBeCloseTo(69.0941, 3);
    // At 60 degrees north a degree of longitude is about half as long (a bit more along the great circle).
    expect(haversineMiles(60, 0, 60, 1)).toBeCloseTo(34.547, 2);
    expect(haversineMiles(10, 20, 10, 20)).toBe(0);
    // A quarter meridian: pi/2 * R.
    expect(haversineMiles(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * 3958.8, 6);
  });

  it('is symmetric and never negative', () => {
    const lat = fc.double({ min: -90, max: 90, noNaN: true });
    const lng = fc.double({ min: -180, max: 180, noNaN: true });
    fc.assert(
      fc.property(lat, lng, lat, lng, (a, b, c, d) => {
        const x = haversineMiles(a, b, c, d);
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(Math.PI * 3958.8 + 1e-6);
        expect(Math.abs(x - haversineMiles(c, d, a, b))).toBeLessThan(1e-9);
      }),
    );
  });
});

describe('ZipSpatialIndex', () => {
  const points: ZipPoint[] = loadZipSource()
    .map(({ zip, city, stateCode, county, lat, lng }) => ({ zip, city, stateCode, county, lat, lng }))
    .sort((a, b) => (a.zip < b.zip ? -1 : 1));
  const index = new ZipSpatialIndex(
    new ZipTable(
      points.length,
      points.map((p) => [p.zip, p.city, p.stateCode, p.county, '', p.lat, p.lng, '', ''] as const),
      () => '',
    ),
  );

  it('finds exactly what a scan of every ZIP finds, in order, for random centers and radii', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: points.length - 1 }),
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (i, radius, limit) => {
          const c = points[i]!;
          const got = index.nearby(c.lat, c.lng, radius, limit, c.zip);
          const scan = points
            .filter((p) => p.zip !== c.zip)
            .map((p) => ({ zip: p.zip, d: haversineMiles(c.lat, c.lng, p.lat, p.lng) }))
            .filter((p) => p.d <= radius)
            .sort((a, b) => a.d - b.d);
          expect(got.length).toBe(Math.min(limit, scan.length));
          // Same set of distances (ZIPs may swap places only where distances tie after rounding).
          expect(got.map((g) => g.distanceMiles)).toEqual(scan.slice(0, got.length).map((s) => Math.round(s.d * 100) / 100));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('excludes only the center ZIP', () => {
    const c = points.find((p) => p.zip === '90210')!;
    const withCenter = index.nearby(c.lat, c.lng, 5, 500);
    const without = index.nearby(c.lat, c.lng, 5, 500, '90210');
    expect(withCenter[0]).toMatchObject({ zip: '90210', distanceMiles: 0 });
    expect(without.map((p) => p.zip)).toEqual(withCenter.slice(1).map((p) => p.zip));
  });
});
