import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addDays, dateRange, dayNumber, dayOfYear, fromDayNumber, isoDate } from '../../src/domain/dates.js';
import { countryInfo, CONTINENT_NAMES } from '../../src/domain/countries.js';
import { destinationPoint, EARTH_RADIUS_MILES, haversineMiles, KM_PER_MILE, RAD_PER_DEG, roundMiles } from '../../src/domain/geo.js';
import { PointIndex } from '../../src/domain/point-index.js';
import { compareNames, foldAccents } from '../../src/domain/fold.js';
import { midElevation } from '../../src/domain/weather/daily.js';
import { SphereTree } from '../../src/domain/sphere-tree.js';
import { ZipTable } from '../../src/data/repositories/zip-table.js';
import { createRng, hash32, unitFromSeed } from '../../src/domain/random.js';
import { toUnits, UNIT_LABELS } from '../../src/domain/units.js';
import { isUsStateOrDc, US_STATE_FIPS } from '../../src/domain/us-states.js';
import { summaryOf, temperatureAt } from '../../src/domain/weather/current.js';
import { windowFor } from '../../src/domain/weather/window.js';
import { ZipSpatialIndex } from '../../src/domain/zip-spatial-index.js';
import type { DailyWeather } from '../../src/domain/weather/daily.js';

describe('dates', () => {
  it('whole-day arithmetic on ISO dates, across months, leap days and years', () => {
    expect(dayNumber('1970-01-01')).toBe(0);
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(fromDayNumber(-1)).toBe('1969-12-31');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(dayOfYear('2027-01-01')).toBe(1);
    expect(dayOfYear('2028-12-31')).toBe(366);
    expect(dateRange('2027-12-30', '2028-01-02')).toEqual(['2027-12-30', '2027-12-31', '2028-01-01', '2028-01-02']);
    expect(dateRange('2027-01-02', '2027-01-01')).toEqual([]);
    expect(isoDate(new Date('2027-05-06T23:59:59Z'))).toBe('2027-05-06');
    expect(Number.isNaN(dayNumber('not a date'))).toBe(true);
  });

  it('stays right after its memo is cleared (more than 100,000 distinct days)', () => {
    for (let n = 0; n < 100_010; n++) fromDayNumber(n);
    expect(addDays('2027-01-31', 1)).toBe('2027-02-01');
    expect(fromDayNumber(100_005)).toBe(new Date(100_005 * 86_400_000).toISOString().slice(0, 10));
  });

  it('the stored window is the last 60 days and the next 7 of every local calendar: a day wider each way than UTC’s', () => {
    expect(windowFor('2027-03-01')).toEqual({ from: '2026-12-31', to: '2027-03-08' });
  });
});

describe('units', () => {
  it('metric as stored, rounded; imperial converted', () => {
    expect(toUnits.depth(25.44, 'METRIC')).toBe(25.4);
    expect(toUnits.depth(25.4, 'IMPERIAL')).toBe(10);
    expect(toUnits.elevation(3048.4, 'METRIC')).toBe(3048);
    expect(toUnits.elevation(3048, 'IMPERIAL')).toBe(10000);
    expect(toUnits.length(304.8, 'IMPERIAL')).toBe(1000);
    expect(toUnits.length(12.6, 'METRIC')).toBe(13);
    expect(toUnits.temperature(-40, 'IMPERIAL')).toBe(-40);
    expect(toUnits.temperature(0, 'IMPERIAL')).toBe(32);
    expect(toUnits.temperature(-3.26, 'METRIC')).toBe(-3.3);
    expect(toUnits.speed(100, 'IMPERIAL')).toBe(62.1);
    expect(toUnits.speed(12.34, 'METRIC')).toBe(12.3);
    expect(toUnits.precipitation(25.4, 'IMPERIAL')).toBe(1);
    expect(toUnits.precipitation(3, 'IMPERIAL')).toBe(0.12);
    expect(toUnits.precipitation(3.06, 'METRIC')).toBe(3.1);
    expect(UNIT_LABELS.IMPERIAL).toEqual({
      system: 'IMPERIAL',
      depth: 'in',
      elevation: 'ft',
      length: 'ft',
      temperature: '°F',
      speed: 'mph',
      precipitation: 'in',
    });
    expect(UNIT_LABELS.METRIC).toEqual({ system: 'METRIC', depth: 'cm', elevation: 'm', length: 'm', temperature: '°C', speed: 'km/h', precipitation: 'mm' });
  });
});

describe('seeded randomness', () => {
  it('FNV-1a, and the same seed always gives the same numbers', () => {
    expect(hash32('')).toBe(0x811c9dc5);
    expect(hash32('a')).toBe(0xe40c292c);
    expect(hash32('foobar')).toBe(0xbf9cf968);
    expect(unitFromSeed('x')).toBe(unitFromSeed('x'));
    expect(unitFromSeed('x')).not.toBe(unitFromSeed('y'));
    const a = createRng('s');
    const b = createRng('s');
    expect([a.next(), a.normal(), a.exponential(2), a.int(1, 6), a.pick(['p', 'q'])]).toEqual([
      b.next(),
      b.normal(),
      b.exponential(2),
      b.int(1, 6),
      b.pick(['p', 'q']),
    ]);
  });

  it('draws stay in their ranges and have the asked-for moments', () => {
    const rng = createRng('moments');
    const n = 20_000;
    const u = Array.from({ length: n }, () => rng.next());
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    const normals = Array.from({ length: n }, () => rng.normal(10, 2));
    const mean = normals.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(normals.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
    expect(mean).toBeCloseTo(10, 1);
    expect(sd).toBeCloseTo(2, 1);
    const std = Array.from({ length: n }, () => rng.normal());
    expect(std.reduce((s, x) => s + x, 0) / n).toBeCloseTo(0, 1);
    const exp = Array.from({ length: n }, () => rng.exponential(3));
    expect(Math.min(...exp)).toBeGreaterThanOrEqual(0);
    expect(exp.reduce((s, x) => s + x, 0) / n).toBeCloseTo(3, 1);
    const ints = new Set(Array.from({ length: 1000 }, () => rng.int(2, 4)));
    expect([...ints].sort()).toEqual([2, 3, 4]);
    const picks = new Set(Array.from({ length: 1000 }, () => rng.pick(['a', 'b', 'c'])));
    expect([...picks].sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('geo', () => {
  it('rounds distances to two decimals and walks a bearing', () => {
    expect(roundMiles(1.005001)).toBe(1.01);
    expect(roundMiles(1.0049)).toBe(1);
    const east = destinationPoint(0, 179.9, 90, 100);
    expect(east.lat).toBeCloseTo(0, 5);
    expect(east.lng).toBeCloseTo(-179.20067, 4);
    const south = destinationPoint(10, 20, 180, 111.195);
    expect(south.lat).toBeCloseTo(9, 4);
    expect(south.lng).toBe(20);
    expect(destinationPoint(10, 20, 0, 0)).toEqual({ lat: 10, lng: 20 });
    expect(haversineMiles(10, 20, south.lat, south.lng)).toBeCloseTo(69.09, 1);
  });
});

describe('the point index', () => {
  const p = (key: string, lat: number, lng: number) => ({ key, lat, lng });
  // Four points one degree of longitude apart on the equator (69.09 mi each), two at the same spot.
  const items = [p('a', 0, 0), p('b', 0, 1), p('c', 0, 1), p('d', 0, 2), p('e', 0, 3)];
  const index = PointIndex.of(items, (x) => x.key);

  it('nearest first, exact ties by key, cut at the radius and the limit, the center left out on request', () => {
    const keys = (r: { item: { key: string } }[]) => r.map((x) => x.item.key);
    expect(keys(index.nearby(0, 0, 200, 10))).toEqual(['a', 'b', 'c', 'd']);
    expect(keys(index.nearby(0, 0, 200, 10, 'a'))).toEqual(['b', 'c', 'd']);
    expect(keys(index.nearby(0, 0, 200, 2))).toEqual(['a', 'b']);
    expect(keys(index.nearby(0, 0, 69.09, 10))).toEqual(['a']);
    expect(keys(index.nearby(0, 0, 69.1, 10))).toEqual(['a', 'b', 'c']);
    expect(index.nearby(0, 0, 300, 10).map((x) => x.distanceMiles)).toEqual([0, 69.09, 69.09, 138.19, 207.28]);
    expect(keys(index.nearby(0, 0, 200, 10, 'zz'))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('the radius is inclusive to the bit: radius 0 finds the items at the center itself', () => {
    // Haversine's a is exactly 0 for the center and for a radius of 0: the one case where the
    // item's value and the radius's are bit for bit the same, so `>` and `>=` differ.
    expect(index.nearby(0, 1, 0, 10).map((x) => [x.item.key, x.distanceMiles])).toEqual([
      ['b', 0],
      ['c', 0],
    ]);
    expect(index.nearby(0, 1, 0, 10, 'b').map((x) => x.item.key)).toEqual(['c']);
  });

  it('an item exactly on the radius is within it, at every scale and bearing', () => {
    // The KD-tree measures on its own (slightly smaller) Earth with a padded radius; the exact cut
    // is ours. An item at the radius itself must survive the tree's cut.
    for (const miles of [0.3, 1, 5, 50, 500, 3000]) {
      for (const bearing of [0, 45, 90, 200]) {
        const at = destinationPoint(40, -105, bearing, miles * KM_PER_MILE);
        const onEdge = PointIndex.of([p('center', 40, -105), p('edge', at.lat, at.lng)], (x) => x.key);
        // Within 1e-9 mi: the two haversine forms differ in the last bits (as in the property below).
        const radius = haversineMiles(40, -105, at.lat, at.lng) + 1e-9;
        expect(
          onEdge.nearby(40, -105, radius, 5).map((x) => x.item.key),
          `${miles} mi at ${bearing}°`,
        ).toEqual(['center', 'edge']);
      }
    }
  });

  it("an item a hair beyond the radius is out, though the tree's padded search hands it over", () => {
    // The tree's radius is padded by a millionth; the cut at the radius is the answer's own.
    for (const miles of [1, 50, 500]) {
      const at = destinationPoint(40, -105, 30, miles * KM_PER_MILE);
      const beyond = PointIndex.of([p('center', 40, -105), p('edge', at.lat, at.lng)], (x) => x.key);
      const d = haversineMiles(40, -105, at.lat, at.lng);
      expect(
        beyond.nearby(40, -105, d * (1 - 2e-7), 5).map((x) => x.item.key),
        `${miles} mi`,
      ).toEqual(['center']);
    }
  });

  it('a limit that cuts through equally distant items keeps the first by key', () => {
    const same = Array.from({ length: 40 }, (_, i) => p(`k${String(i).padStart(2, '0')}`, 10, 10));
    const crowd = PointIndex.of([p('a', 10, 9.99), ...same], (x) => x.key);
    for (const limit of [1, 2, 5, 17, 39]) {
      expect(crowd.nearby(10, 10, 5, limit, 'k00').map((x) => x.item.key)).toEqual(same.slice(1, 1 + limit).map((x) => x.key));
    }
    expect(crowd.nearby(10, 10, 5, 41).map((x) => x.item.key)).toEqual([...same.map((x) => x.key), 'a']);
    // A crowd of 300 on one spot, spread over many leaves of the tree: still the first by key.
    const many = Array.from({ length: 300 }, (_, i) => p(`m${String(i).padStart(3, '0')}`, 10, 10));
    const big = PointIndex.of([...many, p('z', 10, 9.99)], (x) => x.key);
    for (const limit of [1, 3, 10, 40, 299]) expect(big.nearby(10, 10, 5, limit).map((x) => x.item.key)).toEqual(many.slice(0, limit).map((x) => x.key));
  });

  it('a limit that cuts through equally distant items away from the center keeps the first by key', () => {
    // The crowd's distance is not 0 here: the one after the last kept ties with it exactly (the
    // same bits), and the tree, asked for limit + 1, may hand over any few of the crowd.
    const many = Array.from({ length: 300 }, (_, i) => p(`m${String(i).padStart(3, '0')}`, 10, 10));
    const big = PointIndex.of(many, (x) => x.key);
    for (const limit of [1, 3, 10, 40, 299]) {
      const got = big.nearby(10.001, 10, 5, limit);
      expect(
        got.map((x) => x.item.key),
        `limit ${limit}`,
      ).toEqual(many.slice(0, limit).map((x) => x.key));
      expect(new Set(got.map((x) => x.distanceMiles))).toEqual(new Set([0.07]));
    }
  });

  it('a smaller limit answers the start of a larger one’s answer, where equal distances straddle the cut', () => {
    // Honolulu's 96812 sits between two groups of ZIP centroids 0.0001° north and south: equally far
    // in exact arithmetic, a few bits apart in haversine's. A walk that handed over part of a group
    // answered limit 3 with three that limit 8 does not begin with.
    const north = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map((k) => p(k, 21.3062, -157.8585));
    const south = ['m1', 'm2'].map((k) => p(k, 21.306, -157.8585));
    const honolulu = PointIndex.of([...south, ...north, p('o', 21.3061, -157.8585)], (x) => x.key);
    const answer = (limit: number) => honolulu.nearby(21.3061, -157.8585, 1, limit, 'o').map((x) => x.item.key);
    const all = answer(8);
    expect(all).toHaveLength(8);
    for (let limit = 1; limit < 8; limit++) expect(answer(limit), `limit ${limit}`).toEqual(all.slice(0, limit));
  });

  it('anywhere on Earth: the nearest within the radius, in order, as measuring every point finds them', () => {
    // Centroid-like coordinates (4 decimals). Distances equal to within 1e-9 mi count as ties
    // (haversine's float rounding can order them either way); exact ties are the test above.
    const coord = fc.record({
      lat: fc.integer({ min: -800_000, max: 800_000 }).map((x) => x / 10_000),
      lng: fc.integer({ min: -1_790_000, max: 1_790_000 }).map((x) => x / 10_000),
    });
    fc.assert(
      fc.property(
        fc.array(coord, { minLength: 1, maxLength: 60 }),
        coord,
        fc.double({ min: 1, max: 3000, noNaN: true }),
        fc.integer({ min: 1, max: 70 }),
        (points, center, radius, limit) => {
          const items = points.map((pt, i) => p(`p${String(i).padStart(3, '0')}`, pt.lat, pt.lng));
          const index = PointIndex.of(items, (x) => x.key);
          const distance = new Map(items.map((it) => [it.key, haversineMiles(center.lat, center.lng, it.lat, it.lng)]));
          const within = items.filter((it) => distance.get(it.key)! <= radius);
          const got = index.nearby(center.lat, center.lng, radius, limit);
          expect(got).toHaveLength(Math.min(limit, within.length));
          const d = got.map((x) => distance.get(x.item.key)!);
          for (let i = 1; i < d.length; i++) expect(d[i]!).toBeGreaterThanOrEqual(d[i - 1]! - 1e-9);
          for (const [i, x] of got.entries()) expect(x.distanceMiles).toBe(roundMiles(d[i]!));
          // Nothing left out is nearer than the farthest one returned.
          const returned = new Set(got.map((x) => x.item.key));
          const farthest = d.at(-1) ?? 0;
          for (const it of within) if (!returned.has(it.key)) expect(distance.get(it.key)!).toBeGreaterThanOrEqual(farthest - 1e-9);
          if (items.length > 1) expect(index.nearby(center.lat, center.lng, radius, limit, items[0]!.key).map((x) => x.item.key)).not.toContain(items[0]!.key);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a crowd around the center: the nearest within the radius, nearest first, as measuring every point finds them', () => {
    // Points within a few degrees of the center (as ZIP centroids crowd a city), so dozens fall
    // inside the radius and the order among them is what is tested.
    fc.assert(
      fc.property(
        fc.record({ lat: fc.integer({ min: -600_000, max: 600_000 }), lng: fc.integer({ min: -1_700_000, max: 1_700_000 }) }),
        fc.array(fc.record({ dLat: fc.integer({ min: -30_000, max: 30_000 }), dLng: fc.integer({ min: -30_000, max: 30_000 }) }), {
          minLength: 20,
          maxLength: 200,
        }),
        fc.double({ min: 1, max: 300, noNaN: true }),
        fc.integer({ min: 1, max: 70 }),
        (c, offsets, radius, limit) => {
          const center = { lat: c.lat / 10_000, lng: c.lng / 10_000 };
          const items = offsets.map((o, i) => p(`p${String(i).padStart(3, '0')}`, (c.lat + o.dLat) / 10_000, (c.lng + o.dLng) / 10_000));
          const index = PointIndex.of(items, (x) => x.key);
          const distance = (it: { lat: number; lng: number }) => haversineMiles(center.lat, center.lng, it.lat, it.lng);
          const want = items
            .map((it) => distance(it))
            .filter((d) => d <= radius)
            .sort((x, y) => x - y)
            .slice(0, limit)
            .map(roundMiles);
          expect(index.nearby(center.lat, center.lng, radius, limit).map((x) => x.distanceMiles)).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('the sphere tree hands over the nearest by chord, as measuring every point finds them', () => {
    // Hundreds of points (a leaf holds 32), some stacked on one spot, so the walk opens and prunes
    // nodes; several centers per tree. Not shrunk on failure: shrinking 600 points takes minutes.
    const coord = fc.record({
      lat: fc.integer({ min: -900_000, max: 900_000 }).map((x) => x / 10_000),
      lng: fc.integer({ min: -1_800_000, max: 1_800_000 }).map((x) => x / 10_000),
    });
    const chord2 = (a: { lat: number; lng: number }, b: { lat: number; lng: number }) =>
      4 * Math.sin(haversineMiles(a.lat, a.lng, b.lat, b.lng) / EARTH_RADIUS_MILES / 2) ** 2;
    const query = fc.record({
      center: coord,
      k: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constant(Infinity)),
      max: fc.oneof(fc.constant(4), fc.double({ min: 0, max: 4, noNaN: true })),
    });
    fc.assert(
      fc.property(
        fc.array(coord, { minLength: 200, maxLength: 600 }),
        fc.nat(20),
        fc.array(query, { minLength: 10, maxLength: 10 }),
        (spread, stacked, queries) => {
          const points = [...spread, ...Array.from({ length: stacked }, () => spread[0]!)];
          const tree = new SphereTree(
            points.map((x) => x.lat),
            points.map((x) => x.lng),
          );
          for (const [q, { center, k, max }] of queries.entries()) {
            const skip = q % 2 ? q : -1;
            const got = tree.nearest(center.lat, center.lng, k, max, skip);
            const d = points.map((x) => chord2(center, x));
            const inside = (slack: number) => points.map((_, i) => i).filter((i) => i !== skip && d[i]! <= max * (1 + slack));
            const want = inside(-1e-9);
            expect(new Set(got).size).toBe(got.length);
            expect(got.length).toBeGreaterThanOrEqual(Math.min(k, want.length));
            expect(got.length).toBeLessThanOrEqual(Math.min(k, inside(1e-9).length));
            expect(got).not.toContain(skip);
            // Nothing handed over is farther than anything left out (to within float rounding).
            const farthest = Math.max(...got.map((i) => d[i]!));
            const handed = new Set(got);
            const nearestLeft = Math.min(...want.filter((i) => !handed.has(i)).map((i) => d[i]!));
            expect(nearestLeft).toBeGreaterThanOrEqual(farthest * (1 - 1e-9) - 1e-15);
          }
        },
      ),
      { numRuns: 200, endOnFailure: true },
    );
  });

  it('the sphere tree, asked for every point within a radius, finds one that lies alone across a split', () => {
    // 59 points east of India (a leaf holds 32, so the tree splits); the one point within the radius
    // of (28, 99) lies on the far side of a split whose near side has none within it.
    const lat = [
      10, 44, 31, 38, 40, 42, 18, 51, -1, 14, 8, 49, 38, 12, -3, -4, 51, 38, -2, 27, 4, 24, 54, 2, 2, 43, 48, 51, 10, 41, 7, 31, 33, 36, 2, 1, 27, 32, 15, 29,
      -4, 30, 10, 7, 46, 12, 11, 33, 9, 34, 52, 0, 19, 37, 19, 33, 15, 45, 11,
    ];
    const lng = [
      83, 95, 124, 89, 73, 129, 88, 95, 118, 124, 115, 119, 94, 91, 104, 126, 129, 116, 128, 82, 97, 79, 109, 106, 103, 70, 118, 76, 108, 82, 82, 116, 111, 91,
      125, 75, 109, 83, 80, 95, 123, 81, 103, 110, 99, 128, 115, 71, 83, 81, 83, 74, 100, 107, 114, 83, 70, 92, 76,
    ];
    const tree = new SphereTree(lat, lng);
    const chord2 = (i: number) => 4 * Math.sin(haversineMiles(28, 99, lat[i]!, lng[i]!) / EARTH_RADIUS_MILES / 2) ** 2;
    const max = 0.01739871298309572;
    const inside = lat.map((_, i) => i).filter((i) => chord2(i) <= max);
    expect(inside).toHaveLength(1);
    expect(tree.nearest(28, 99, Infinity, max, -1)).toEqual(inside);
  });

  it("the sphere tree's radius is inclusive: a point whose squared chord is exactly the bound is handed over", () => {
    // The squared chord computed as the tree does (unit vectors, then squared differences), bit for bit.
    const unit = (lat: number, lng: number) => [
      Math.cos(lat * RAD_PER_DEG) * Math.cos(lng * RAD_PER_DEG),
      Math.cos(lat * RAD_PER_DEG) * Math.sin(lng * RAD_PER_DEG),
      Math.sin(lat * RAD_PER_DEG),
    ];
    const [q, e] = [unit(10, 20), unit(10.5, 20.25)];
    const exact = (e[0]! - q[0]!) * (e[0]! - q[0]!) + (e[1]! - q[1]!) * (e[1]! - q[1]!) + (e[2]! - q[2]!) * (e[2]! - q[2]!);
    const tree = new SphereTree([10, 10.5, 11], [20, 20.25, 21]);
    expect(tree.nearest(10, 20, 5, exact, -1).sort()).toEqual([0, 1]);
  });

  it("the sphere tree's radius is inclusive across a split too: a side whose plane lies exactly at the bound is walked", () => {
    // 21 copies of one point beside 20 others (41 points: the root splits on x, its sides are
    // leaves). The copies hold the extreme x, so one is the root's median and the rest lie on one
    // side of it; the center is their mirror through x = 0, so a copy's squared chord is the
    // squared distance to the splitting plane, bit for bit. With the bound there, that side holds
    // points exactly on it and must be walked, on either side of the median.
    const unit = (lat: number, lng: number) => [
      Math.cos(lat * RAD_PER_DEG) * Math.cos(lng * RAD_PER_DEG),
      Math.cos(lat * RAD_PER_DEG) * Math.sin(lng * RAD_PER_DEG),
      Math.sin(lat * RAD_PER_DEG),
    ];
    const chord2 = (a: number[], b: number[]) => (a[0]! - b[0]!) * (a[0]! - b[0]!) + (a[1]! - b[1]!) * (a[1]! - b[1]!) + (a[2]! - b[2]!) * (a[2]! - b[2]!);
    const others = Array.from({ length: 20 }, (_, i) => ({ lat: 50, lng: -171 + 18 * i }));
    // Copies at the largest x (lng 0: the median and the side after it), then at the smallest (lng 180: before it).
    for (const [copyLng, centerLng] of [
      [0, 180],
      [180, 0],
    ] as const) {
      const points = [...others, ...Array.from({ length: 21 }, () => ({ lat: 10, lng: copyLng }))];
      const tree = new SphereTree(
        points.map((x) => x.lat),
        points.map((x) => x.lng),
      );
      const [q, copy] = [unit(10, centerLng), unit(10, copyLng)];
      const bound = chord2(copy, q);
      // The case itself: the copy's squared chord is the squared distance to the plane x = copy's x.
      expect((q[0]! - copy[0]!) * (q[0]! - copy[0]!), `copies at ${copyLng}`).toBe(bound);
      const within = points.map((_, i) => i).filter((i) => chord2(unit(points[i]!.lat, points[i]!.lng), q) <= bound);
      expect(within.filter((i) => i >= 20)).toHaveLength(21);
      expect(
        tree.nearest(10, centerLng, Infinity, bound, -1).sort((a, b) => a - b),
        `copies at ${copyLng}`,
      ).toEqual(within);
    }
  });

  it('finds items by key, and refuses unsorted or duplicate keys', () => {
    expect(index.get('d')).toEqual(p('d', 0, 2));
    expect(index.get('a')).toEqual(p('a', 0, 0));
    expect(index.get('b')).toEqual(p('b', 0, 1));
    expect(index.get('e')).toEqual(p('e', 0, 3));
    expect(index.get('bb')).toBeUndefined();
    expect(index.size).toBe(5);
    expect(() => PointIndex.of([p('b', 0, 0), p('a', 0, 0)], (x) => x.key)).toThrow(/sorted/);
    expect(() => PointIndex.of([p('a', 0, 0), p('a', 0, 0)], (x) => x.key)).toThrow(/sorted/);
    expect(PointIndex.of([], (x: { key: string; lat: number; lng: number }) => x.key).nearby(0, 0, 10, 10)).toEqual([]);
  });

  it('the ZIP index answers with the place and the distance', () => {
    const table = new ZipTable(
      2,
      [
        ['00001', 'A', 'XX', 'C', '001', 0, 0, 'Etc/UTC', '2026-01-01'],
        ['00002', 'B', 'XX', 'C', '001', 0, 1, 'Etc/UTC', '2026-01-01'],
      ],
      () => 'Xland',
    );
    const zips = new ZipSpatialIndex(table);
    expect(zips.size).toBe(2);
    expect(zips.point('00002')).toEqual({ zip: '00002', city: 'B', stateCode: 'XX', county: 'C', lat: 0, lng: 1 });
    expect(zips.point('00003')).toBeUndefined();
    expect(zips.point('00001')).toEqual({ zip: '00001', city: 'A', stateCode: 'XX', county: 'C', lat: 0, lng: 0 });
    expect(table.record(1)).toEqual({
      zip: '00002',
      city: 'B',
      stateCode: 'XX',
      stateName: 'Xland',
      county: 'C',
      countyFips: '001',
      lat: 0,
      lng: 1,
      timezone: 'Etc/UTC',
      lastUpdated: '2026-01-01',
    });
    expect([table.rowOf('00001'), table.rowOf('00003'), table.rowOf('1'), table.rowOf('0000x')]).toEqual([0, -1, -1, -1]);
    expect(table.statePage('XX', 1, 5).map((r) => r.zip)).toEqual(['00002']);
    expect(table.statePage('YY', 0, 5)).toEqual([]);
    // Rows out of ZIP order, or more or fewer than announced, are refused.
    expect(
      () =>
        new ZipTable(
          2,
          [
            ['00002', 'B', 'XX', 'C', '001', 0, 1, 'Z', 'D'],
            ['00001', 'A', 'XX', 'C', '001', 0, 0, 'Z', 'D'],
          ],
          () => 'X',
        ),
    ).toThrow(/in order/);
    expect(() => new ZipTable(3, [['00001', 'A', 'XX', 'C', '001', 0, 0, 'Z', 'D']], () => 'X')).toThrow(/3 expected/);
    expect(zips.nearby(0, 0, 100, 5).map((z) => z.zip)).toEqual(['00001', '00002']);
    expect(zips.nearby(0, 0, 100, 5, '00001')).toEqual([{ zip: '00002', city: 'B', stateCode: 'XX', county: 'C', lat: 0, lng: 1, distanceMiles: 69.09 }]);
  });
});

describe('reference tables', () => {
  it('51 state codes with their FIPS codes; territories and military codes are not states', () => {
    expect(Object.keys(US_STATE_FIPS)).toHaveLength(51);
    expect(US_STATE_FIPS.WY).toBe('56');
    expect(['CA', 'DC'].map(isUsStateOrDc)).toEqual([true, true]);
    expect(['PR', 'AE', 'toString', 'ca'].map(isUsStateOrDc)).toEqual([false, false, false, false]);
  });

  it('countries by code, any case; continents by name', () => {
    expect(countryInfo('ch')).toEqual({ code: 'CH', name: 'Switzerland', continent: 'Europe' });
    expect(countryInfo('XX')).toBeNull();
    expect(CONTINENT_NAMES).toContain('South America');
  });
});

describe('current weather', () => {
  const day = (over: Partial<DailyWeather>) => ({ precipitationMm: 0, snowfallBaseCm: 0, snowfallSummitCm: 0, ...over }) as DailyWeather;

  it('summarises the day', () => {
    expect(summaryOf(day({}))).toBe('DRY');
    expect(summaryOf(day({ precipitationMm: 1, snowfallBaseCm: 1 }))).toBe('SNOW');
    expect(summaryOf(day({ precipitationMm: 1, snowfallSummitCm: 1 }))).toBe('MIXED');
    expect(summaryOf(day({ precipitationMm: 1 }))).toBe('RAIN');
  });

  it('the temperature runs from the minimum at 03:00 to the maximum at 15:00 local solar time', () => {
    expect(temperatureAt(-10, 0, new Date('2027-01-15T03:00:00Z'), 0)).toBe(-10);
    expect(temperatureAt(-10, 0, new Date('2027-01-15T15:00:00Z'), 0)).toBe(0);
    expect(temperatureAt(-10, 0, new Date('2027-01-15T09:00:00Z'), 0)).toBe(-5);
    expect(temperatureAt(-10, 0, new Date('2027-01-15T09:30:00Z'), 0)).toBe(-4.3);
    // 90° east is six hours ahead: 21:00 UTC there is 03:00 local.
    expect(temperatureAt(-10, 0, new Date('2027-01-15T21:00:00Z'), 90)).toBe(-10);
    expect(temperatureAt(-10, 0, new Date('2027-01-15T09:00:00Z'), -90)).toBe(-10);
    // 75° west is five hours behind: 08:00 UTC there is 03:00 local.
    expect(temperatureAt(-8, 2, new Date('2027-01-15T08:00:00Z'), -75)).toBe(-8);
    expect(temperatureAt(-8, 2, new Date('2027-01-15T14:00:00Z'), -75)).toBe(-3);
    expect(temperatureAt(-8, 2, new Date('2027-01-15T01:00:00Z'), -75)).toBe(-1.7);
  });
});

describe('the order of names', () => {
  it('accents and case aside first, then as written; equal names compare 0', () => {
    const names = ['Zermatt', 'canon', 'Åre', 'alta', 'Bad Gastein', 'Cañon', 'Alta'];
    expect([...names].sort(compareNames)).toEqual(['Alta', 'alta', 'Åre', 'Bad Gastein', 'Cañon', 'canon', 'Zermatt']);
    expect(compareNames('Alta', 'Alta')).toBe(0);
    expect(compareNames('alta', 'Alta')).toBe(1);
    expect(compareNames('Alta', 'alta')).toBe(-1);
    expect(compareNames('b', 'A')).toBe(1);
    expect(compareNames('A', 'b')).toBe(-1);
    expect(foldAccents('Cañon Ärlberg')).toBe('canon arlberg');
  });
});

describe('small rules', () => {
  it('mid-mountain is halfway between base and summit, to the metre', () => {
    expect(midElevation({ baseElevation: 2475, summitElevation: 3527 })).toBe(3001);
    expect(midElevation({ baseElevation: 1000, summitElevation: 1001 })).toBe(1001);
  });

  it('a point index refuses columns that do not match its keys', () => {
    const keys = { size: 2, positionOf: () => -1, keyAt: () => '' } as unknown as ConstructorParameters<typeof PointIndex>[0];
    expect(() => new PointIndex(keys, new Float64Array(2), new Float64Array(1), () => null)).toThrow(
      'PointIndex needs a latitude and a longitude for every key',
    );
    expect(() => new PointIndex(keys, new Float64Array(1), new Float64Array(2), () => null)).toThrow(
      'PointIndex needs a latitude and a longitude for every key',
    );
  });
});
